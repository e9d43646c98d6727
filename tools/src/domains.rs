//! The domains of the bundled tools.

tool_core::domain!(
    pub time,
    "Clocks and time zones: the current time anywhere, and conversions between zones"
);
tool_core::domain!(
    pub fs,
    "Read-only access to files under a configured root directory"
);
tool_core::domain!(
    pub web,
    "The public web: fetch a page as readable text"
);
