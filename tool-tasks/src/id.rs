//! Task ids: unguessable, since an id is all a client (or anyone who learns it) presents.

/// A new task id: 128 random bits from the operating system, as 32 lowercase hex digits.
///
/// ```
/// let id = tool_tasks::new_task_id();
/// assert_eq!(id.len(), 32);
/// assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
/// assert_ne!(id, tool_tasks::new_task_id());
/// ```
pub fn new_task_id() -> String {
    let mut bytes = [0u8; 16];
    // The OS's random source failing leaves no safe id to give: nothing else would do.
    getrandom::fill(&mut bytes).expect("the operating system's random source");
    let mut id = String::with_capacity(32);
    for byte in bytes {
        id.push(char::from_digit(u32::from(byte >> 4), 16).unwrap_or('0'));
        id.push(char::from_digit(u32::from(byte & 0xf), 16).unwrap_or('0'));
    }
    id
}
