//! Asking a person at the terminal before a call runs: the question on stderr, the answer read
//! from stdin, one question at a time.

use std::io::{BufRead, Write};
use std::time::Instant;

use tokio::sync::mpsc;
use tool_core::context::{ApprovalFuture, ApprovalRequest, Approver, Decision, Remember};
use tool_core::error::sanitize::reveal;

/// An [`Approver`] that asks a person at a terminal: it writes the question (the tool, the
/// message with the call's arguments, the choices, the time left) and reads one answer line:
///
/// | answer | means |
/// |---|---|
/// | `y`, `yes` | run this call |
/// | `s`, `same` | run it, and identical calls (same tool, same arguments) this session without asking |
/// | `a`, `all` | run it, and every call of this tool this session without asking |
/// | `n`, `no`, `n REASON` | do not run it; the reason goes to the model with the denial |
///
/// Anything else (an empty line too) is asked again. Only one question is on the terminal at
/// a time: calls made in parallel wait their turn. Lines typed before a question was shown are
/// not taken as its answer: [`stdio`](Self::stdio) and [`fd`](Self::fd) read their input only
/// while a question waits and discard what is pending when one is asked (so `echo y | my-agent
/// call delete_note ...` is refused, not approved); [`new`](Self::new), over any reader,
/// drops the lines it has read before the question. When the input ends, every call is
/// refused as one no one can answer ([`Decision::Unavailable`]). Text that could hide part of
/// the question (escape sequences, control and invisible characters in the arguments) is shown
/// escaped.
///
/// "This session" is the caller's: wrap it in [`Remembering`](tool_core::context::Remembering) under an
/// [`ApprovalScope`](tool_core::context::ApprovalScope), as `tool_agent::Agent::approver` does, to keep
/// those approvals; this approver only reports what the person chose.
///
/// ```
/// use std::io::{Read, Write};
/// use tool_cli::TerminalApprover;
/// use tool_core::{ToolContext, context::{Approver, ApprovalRequest, Decision}};
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let (input, mut person) = std::io::pipe().unwrap();
/// let (mut screen, output) = std::io::pipe().unwrap();
/// let approver = TerminalApprover::new(std::io::BufReader::new(input), output);
/// let ctx = ToolContext::new();
/// let arguments = serde_json::json!({"path": "notes.txt"});
/// let request = ApprovalRequest::new("delete_file", &arguments, "Delete notes.txt?", &ctx);
/// let asking = approver.approve(&request);
/// // The person answers once the question is shown (it ends in the prompt `> `).
/// std::thread::spawn(move || {
///     let mut shown = Vec::new();
///     let mut byte = [0u8];
///     while !shown.ends_with(b"> ") && screen.read(&mut byte).is_ok_and(|n| n == 1) {
///         shown.push(byte[0]);
///     }
///     person.write_all(b"n not that one\n").unwrap();
/// });
/// assert_eq!(asking.await, Decision::denied("not that one".to_owned()));
/// # });
/// ```
pub struct TerminalApprover {
    /// The terminal, held by the question on it.
    terminal: tokio::sync::Mutex<Terminal>,
}

struct Terminal {
    /// Answer lines as they are read; closed when the input ends.
    lines: mpsc::UnboundedReceiver<String>,
    out: Box<dyn Write + Send>,
    /// The input has ended.
    closed: bool,
    /// An input read only while a question waits (`None`: read as lines come).
    #[cfg(unix)]
    on_request: Option<OnRequest>,
}

/// An input read a line at a time, when a question asks for one.
#[cfg(unix)]
struct OnRequest {
    input: std::sync::Arc<dyn std::os::fd::AsFd + Send + Sync>,
    /// Asks the reader for a line.
    requests: std::sync::mpsc::Sender<()>,
    /// A line was asked for and has not come yet (its question may have gone).
    outstanding: bool,
}

impl std::fmt::Debug for TerminalApprover {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TerminalApprover").finish_non_exhaustive()
    }
}

impl TerminalApprover {
    /// Asks on this process's terminal: questions on stderr, answers from stdin (on Unix,
    /// read as [`fd`](Self::fd) reads, only while a question waits).
    pub fn stdio() -> Self {
        #[cfg(unix)]
        return Self::fd(std::io::stdin(), std::io::stderr());
        #[cfg(not(unix))]
        Self::new(std::io::BufReader::new(std::io::stdin()), std::io::stderr())
    }

    /// Asks on `output` and reads answers from `input` (a terminal, a pipe, a file), a line
    /// at a time and only while a question waits, on a thread of its own. Asking discards what
    /// is pending there: a terminal's input queue is flushed, a pipe's or a file's bytes are
    /// read and dropped (and its end, if reached, refuses the call).
    #[cfg(unix)]
    pub fn fd(
        input: impl std::os::fd::AsFd + Send + Sync + 'static,
        output: impl Write + Send + 'static,
    ) -> Self {
        let input: std::sync::Arc<dyn std::os::fd::AsFd + Send + Sync> = std::sync::Arc::new(input);
        let (sender, lines) = mpsc::unbounded_channel();
        let (requests, asked) = std::sync::mpsc::channel::<()>();
        let reading = input.clone();
        let reader = std::thread::Builder::new()
            .name("approval-answers".to_owned())
            .spawn(move || {
                while asked.recv().is_ok() {
                    let Some(line) = typed::read_line(reading.as_fd()) else {
                        break;
                    };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
        Self {
            terminal: tokio::sync::Mutex::new(Terminal {
                lines,
                out: Box::new(output),
                closed: reader.is_err(),
                on_request: Some(OnRequest {
                    input,
                    requests,
                    outstanding: false,
                }),
            }),
        }
    }

    /// Asks on `output` and reads answers from `input`, line by line, on a thread of its own
    /// (a read from a terminal cannot be interrupted; the thread ends with the input).
    pub fn new(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) -> Self {
        let (sender, lines) = mpsc::unbounded_channel();
        let reader = std::thread::Builder::new()
            .name("approval-answers".to_owned())
            .spawn(move || {
                for line in input.lines() {
                    let Ok(line) = line else { break };
                    if sender.send(line).is_err() {
                        break;
                    }
                }
            });
        // Without its reader the input counts as ended: every call is refused, none run.
        let closed = reader.is_err();
        Self {
            terminal: tokio::sync::Mutex::new(Terminal {
                lines,
                out: Box::new(output),
                closed,
                #[cfg(unix)]
                on_request: None,
            }),
        }
    }
}

impl Approver for TerminalApprover {
    fn approve<'a>(&'a self, request: &'a ApprovalRequest<'a>) -> ApprovalFuture<'a> {
        Box::pin(async move {
            let mut terminal = self.terminal.lock().await;
            let mut asking = Asking {
                terminal: &mut terminal,
                request,
                answered: false,
            };
            let decision = asking.ask().await;
            asking.answered = true;
            decision
        })
    }
}

/// Why a call is refused once the terminal's input has ended.
fn closed() -> Decision {
    Decision::Unavailable {
        why: "the terminal's input is closed, so no one can answer there".to_owned(),
    }
}

/// One question on the terminal; if it is dropped unanswered (the call was cancelled, or timed
/// out, or answered elsewhere), the terminal says so.
struct Asking<'t, 'a> {
    terminal: &'t mut Terminal,
    request: &'a ApprovalRequest<'a>,
    answered: bool,
}

impl Asking<'_, '_> {
    async fn ask(&mut self) -> Decision {
        if self.terminal.closed {
            return closed();
        }
        // What was typed before the question was shown does not answer it.
        #[cfg(unix)]
        let open = self
            .terminal
            .on_request
            .as_ref()
            .is_none_or(|input| typed::discard_pending(input.input.as_fd()));
        #[cfg(not(unix))]
        let open = true;
        while self.terminal.lines.try_recv().is_ok() {}
        let question = question(self.request);
        self.write(&question);
        if !open {
            return self.input_closed();
        }
        loop {
            #[cfg(unix)]
            if let Some(input) = &mut self.terminal.on_request
                && !input.outstanding
            {
                input.outstanding = input.requests.send(()).is_ok();
            }
            let line = self.terminal.lines.recv().await;
            #[cfg(unix)]
            if let Some(input) = &mut self.terminal.on_request {
                input.outstanding = false;
            }
            let Some(line) = line else {
                return self.input_closed();
            };
            match parse_answer(&line) {
                Ok(decision) => {
                    self.write(&format!("({})\n", said(&decision, self.request.tool)));
                    return decision;
                }
                Err(problem) => self.write(&format!("{problem}\n> ")),
            }
        }
    }

    /// The input ended before an answer: the call is refused, and every later one.
    fn input_closed(&mut self) -> Decision {
        self.terminal.closed = true;
        self.write("\n(input closed: the call is not run)\n");
        closed()
    }

    /// Writes to the terminal; a terminal that cannot be written to still has its answer read.
    fn write(&mut self, text: &str) {
        let _ = self.terminal.out.write_all(text.as_bytes());
        let _ = self.terminal.out.flush();
    }
}

impl Drop for Asking<'_, '_> {
    fn drop(&mut self) {
        if self.answered || self.terminal.closed {
            return;
        }
        let tool = self.request.tool;
        let why = if self.request.context.cancellation().is_cancelled() {
            format!("the call to `{tool}` was cancelled: it is not run")
        } else if self
            .request
            .deadline
            .is_some_and(|deadline| Instant::now() >= deadline)
        {
            format!("no answer in time: the call to `{tool}` counts as denied and is not run")
        } else {
            format!("no longer waiting for an answer here about `{tool}`")
        };
        self.write(&format!("\n({why})\n"));
    }
}

/// Reading a terminal or a pipe without a buffer of our own: every byte not read as an answer
/// stays where [`discard_pending`](typed::discard_pending) finds it.
#[cfg(unix)]
mod typed {
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use rustix::io::{Errno, read};
    use std::os::fd::BorrowedFd;

    /// Reads one line, byte by byte (so nothing after it is taken); `None` at the end of the
    /// input or on an error.
    pub(super) fn read_line(input: BorrowedFd<'_>) -> Option<String> {
        let mut line = Vec::new();
        let mut byte = [0u8];
        loop {
            match read(input, &mut byte) {
                Ok(0) if line.is_empty() => return None,
                Ok(0) => break,
                Ok(_) if byte[0] == b'\n' => break,
                Ok(_) => line.push(byte[0]),
                Err(Errno::INTR) => {}
                Err(_) => return None,
            }
        }
        Some(String::from_utf8_lossy(&line).into_owned())
    }

    /// Drops what was typed ahead: a terminal's queue is flushed; a pipe's or a file's pending
    /// bytes are read. Whether the input is still open.
    pub(super) fn discard_pending(input: BorrowedFd<'_>) -> bool {
        if rustix::termios::isatty(input) {
            let _ = rustix::termios::tcflush(input, rustix::termios::QueueSelector::IFlush);
            return true;
        }
        let now = Timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        let mut pending = [0u8; 4096];
        loop {
            let mut ready = [PollFd::new(&input, PollFlags::IN)];
            match poll(&mut ready, Some(&now)) {
                Ok(0) => return true,
                Ok(_) => {}
                Err(Errno::INTR) => continue,
                Err(_) => return true,
            }
            match read(input, &mut pending) {
                Ok(0) => return false,
                Ok(_) | Err(Errno::INTR) => {}
                Err(_) => return true,
            }
        }
    }
}

/// The question about `request`, ending in the prompt.
fn question(request: &ApprovalRequest<'_>) -> String {
    let tool = request.tool;
    let mut text = String::from("\n? approval needed\n");
    for line in reveal(request.message).lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text.push_str(&format!(
        "  y = yes, once;  s = yes, and identical calls this session;\n  \
         a = yes, every call of `{tool}` this session;  n = no (n REASON to say why)\n"
    ));
    if let Some(deadline) = request.deadline {
        let left = deadline.saturating_duration_since(Instant::now());
        text.push_str(&format!(
            "  (no answer within {} s counts as no)\n",
            left.as_secs_f64().round()
        ));
    }
    text.push_str("> ");
    text
}

/// What the answer was taken to mean, echoed after it.
fn said(decision: &Decision, tool: &str) -> String {
    match decision {
        Decision::Approved {
            remember: Remember::SameArguments,
        } => "approved, and identical calls this session".to_owned(),
        Decision::Approved {
            remember: Remember::AnyArguments,
        } => format!("approved, and every call of `{tool}` this session"),
        Decision::Approved { .. } => "approved once".to_owned(),
        Decision::Denied { reason: Some(r) } => format!("denied: {r}"),
        _ => "denied".to_owned(),
    }
}

/// Reads an answer: `y`/`yes`, `s`/`same`, `a`/`all`, or `n`/`no` with an optional reason
/// (`n too risky`, `no: too risky`), any case. Anything else is a problem to show.
pub(crate) fn parse_answer(line: &str) -> Result<Decision, String> {
    let line = line.trim();
    let (word, rest) = match line.find(|c: char| c.is_whitespace() || c == ':' || c == ',') {
        Some(at) => (&line[..at], &line[at..]),
        None => (line, ""),
    };
    let rest = rest
        .trim_start_matches(|c: char| c.is_whitespace() || c == ':' || c == ',')
        .trim();
    let yes = |remember| {
        if rest.is_empty() {
            Ok(Decision::Approved { remember })
        } else {
            Err(format!(
                "`{word}` takes nothing after it: type y, s, a, or n with a reason"
            ))
        }
    };
    match word.to_lowercase().as_str() {
        "y" | "yes" => yes(Remember::No),
        "s" | "same" => yes(Remember::SameArguments),
        "a" | "all" => yes(Remember::AnyArguments),
        "n" | "no" => Ok(Decision::denied(
            (!rest.is_empty()).then(|| rest.to_owned()),
        )),
        "" => Err("type y, s, a or n".to_owned()),
        _ => Err(format!(
            "`{}` is not an answer: type y, s, a or n",
            reveal(word)
        )),
    }
}

/// A writer whose text can be read back, and waited for, in tests.
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct Screen(std::sync::Arc<(std::sync::Mutex<Vec<u8>>, std::sync::Condvar)>);

#[cfg(test)]
impl Screen {
    fn bytes(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.0
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }

    /// Waits until the screen shows `count` prompts or more, for 10 s at most; whether it did.
    pub(crate) fn shows_prompts(&self, count: usize) -> bool {
        let prompts = |bytes: &mut Vec<u8>| String::from_utf8_lossy(bytes).matches("> ").count();
        let waited = self.0.1.wait_timeout_while(
            self.bytes(),
            std::time::Duration::from_secs(10),
            |bytes| prompts(bytes) < count,
        );
        let (bytes, _) = waited.unwrap_or_else(std::sync::PoisonError::into_inner);
        String::from_utf8_lossy(&bytes).matches("> ").count() >= count
    }
}

#[cfg(test)]
impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.bytes().extend_from_slice(buf);
        self.0.1.notify_all();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::time::Duration;
    use tool_core::ToolContext;

    #[test]
    fn answers_read_as_the_person_means_them() {
        let approved = |remember| Ok(Decision::Approved { remember });
        assert_eq!(parse_answer("y"), approved(Remember::No));
        assert_eq!(parse_answer(" YES \r"), approved(Remember::No));
        assert_eq!(parse_answer("s"), approved(Remember::SameArguments));
        assert_eq!(parse_answer("same"), approved(Remember::SameArguments));
        assert_eq!(parse_answer("a"), approved(Remember::AnyArguments));
        assert_eq!(parse_answer("All"), approved(Remember::AnyArguments));
        assert_eq!(parse_answer("n"), Ok(Decision::denied(None)));
        assert_eq!(
            parse_answer("no: not on Fridays"),
            Ok(Decision::denied("not on Fridays".to_owned()))
        );
        assert_eq!(
            parse_answer("n  too risky "),
            Ok(Decision::denied("too risky".to_owned()))
        );
        assert_eq!(
            parse_answer("No, keep it"),
            Ok(Decision::denied("keep it".to_owned()))
        );
        assert!(parse_answer("").is_err());
        assert!(parse_answer("   ").is_err());
        // Yes never comes with more: "y but not the other" is asked again.
        assert!(parse_answer("y but not the other").is_err());
        assert!(parse_answer("yep").is_err());
        assert!(parse_answer("always").is_err());
        // A problem shows hidden characters escaped.
        let problem = parse_answer("\u{1b}[2Ky").unwrap_err();
        assert!(problem.contains("\\u{1b}"), "{problem}");
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn an_answer_is_a_decision_or_a_problem_never_a_panic(line in any::<String>()) {
            match parse_answer(&line) {
                Ok(Decision::Approved { .. }) => {
                    let word = line.trim().to_lowercase();
                    prop_assert!(["y", "yes", "s", "same", "a", "all"].contains(&word.as_str()), "{line:?}");
                }
                Ok(Decision::Denied { reason }) => {
                    let lower = line.trim_start().to_lowercase();
                    prop_assert!(lower.starts_with('n'), "{line:?}");
                    if let Some(reason) = reason {
                        prop_assert!(line.contains(reason.as_str()));
                    }
                }
                Ok(other) => prop_assert!(false, "{other:?}"),
                Err(problem) => prop_assert!(!problem.is_empty()),
            }
        }

        #[test]
        fn a_reason_comes_back_as_written(reason in "[a-zA-Z0-9][a-zA-Z0-9 .!?']{0,40}[a-zA-Z0-9.!?']") {
            prop_assert_eq!(
                parse_answer(&format!("n {reason}")),
                Ok(Decision::denied(reason.clone()))
            );
        }
    }

    /// A terminal whose person types `answers` one at a time, each once the screen shows a new
    /// prompt.
    fn terminal(answers: &[&'static str]) -> (TerminalApprover, Screen) {
        let (input, mut person) = std::io::pipe().unwrap();
        let screen = Screen::default();
        let approver = TerminalApprover::new(std::io::BufReader::new(input), screen.clone());
        let seen = screen.clone();
        let answers = answers.to_vec();
        // A prompt that never comes closes the input (the person leaves): the question ends.
        std::thread::spawn(move || {
            for (i, answer) in answers.into_iter().enumerate() {
                if !seen.shows_prompts(i + 1) {
                    return;
                }
                if person.write_all(format!("{answer}\n").as_bytes()).is_err() {
                    return;
                }
            }
        });
        (approver, screen)
    }

    async fn ask(approver: &TerminalApprover, arguments: serde_json::Value) -> Decision {
        let ctx = ToolContext::new();
        let message = format!("Delete {arguments}?");
        let mut request = ApprovalRequest::new("delete_file", &arguments, &message, &ctx);
        request.deadline = Some(Instant::now() + Duration::from_secs(300));
        approver.approve(&request).await
    }

    #[tokio::test]
    async fn asks_again_until_it_gets_an_answer_and_shows_the_question_safely() {
        let (approver, screen) = terminal(&["", "maybe", "s"]);
        let decision = ask(
            &approver,
            serde_json::json!({"path": "a\u{1b}[2K\u{202e}txt"}),
        )
        .await;
        assert_eq!(
            decision,
            Decision::Approved {
                remember: Remember::SameArguments
            }
        );
        let text = screen.text();
        assert!(text.contains("? approval needed"), "{text}");
        assert!(
            text.contains("a = yes, every call of `delete_file`"),
            "{text}"
        );
        assert!(
            text.contains("(no answer within 300 s counts as no)"),
            "{text}"
        );
        assert!(text.contains("`maybe` is not an answer"), "{text}");
        assert!(
            text.contains("(approved, and identical calls this session)"),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{202e}'),
            "{text:?}"
        );
    }

    /// Input that tells, each time its reader comes back for more, how many lines it took:
    /// every one of them has then been handed to the approver.
    struct Watched {
        input: std::io::BufReader<std::io::PipeReader>,
        lines: usize,
        taken: std::sync::mpsc::Sender<usize>,
    }

    impl std::io::Read for Watched {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = std::io::Read::read(&mut self.input, buf)?;
            self.lines += buf[..n].iter().filter(|b| **b == b'\n').count();
            Ok(n)
        }
    }

    impl BufRead for Watched {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            let _ = self.taken.send(self.lines);
            self.input.fill_buf()
        }

        fn consume(&mut self, amount: usize) {
            let taken = &self.input.buffer()[..amount];
            self.lines += taken.iter().filter(|b| **b == b'\n').count();
            self.input.consume(amount);
        }
    }

    /// Read from a pipe only while a question waits: a line written before the question, even
    /// one no reader has touched, is discarded; the answer written after it counts.
    #[cfg(unix)]
    #[tokio::test]
    async fn an_input_read_on_request_discards_what_was_typed_ahead() {
        let (input, mut person) = std::io::pipe().unwrap();
        let screen = Screen::default();
        let approver = TerminalApprover::fd(input, screen.clone());
        person.write_all(b"a\ny\n").unwrap();
        let seen = screen.clone();
        let typing = std::thread::spawn(move || {
            assert!(seen.shows_prompts(1), "no question");
            person.write_all(b"n too early\nn\n").unwrap();
            // Typed while no question waits: not the next question's answer.
            person
        });
        assert_eq!(
            ask(&approver, serde_json::json!({"path": "1"})).await,
            Decision::denied("too early".to_owned())
        );
        let mut person = typing.join().unwrap();
        let seen = screen.clone();
        let typing = std::thread::spawn(move || {
            assert!(seen.shows_prompts(2), "no second question");
            person.write_all(b"y\n").unwrap();
            person
        });
        assert_eq!(
            ask(&approver, serde_json::json!({"path": "2"})).await,
            Decision::Approved {
                remember: Remember::No
            }
        );
        // Typed ahead, then the input ends: refused, with the question shown.
        let mut person = typing.join().unwrap();
        person.write_all(b"y\n").unwrap();
        drop(person);
        let refused = ask(&approver, serde_json::json!({"path": "3"})).await;
        assert!(
            matches!(refused, Decision::Unavailable { .. }),
            "{refused:?}"
        );
        assert_eq!(screen.text().matches("? approval needed").count(), 3);
        assert!(
            screen
                .text()
                .ends_with("(input closed: the call is not run)\n")
        );
    }

    #[tokio::test]
    async fn one_question_at_a_time_and_typed_ahead_lines_do_not_count() {
        let (input, mut person) = std::io::pipe().unwrap();
        let (taken, lines_taken) = std::sync::mpsc::channel();
        let input = Watched {
            input: std::io::BufReader::new(input),
            lines: 0,
            taken,
        };
        let screen = Screen::default();
        let approver = TerminalApprover::new(input, screen.clone());
        // Typed before any question (and handed over before it): not an answer to the first.
        person.write_all(b"a\n").unwrap();
        let handed = std::iter::from_fn(|| lines_taken.recv_timeout(Duration::from_secs(10)).ok())
            .any(|lines| lines >= 1);
        assert!(handed, "the typed-ahead line was never read");
        let seen = screen.clone();
        let typing = std::thread::spawn(move || {
            for (i, answer) in ["n first no", "y"].iter().enumerate() {
                if !seen.shows_prompts(i + 1) {
                    return None;
                }
                person.write_all(format!("{answer}\n").as_bytes()).unwrap();
            }
            Some(person)
        });
        let (first, second) = tokio::join!(
            ask(&approver, serde_json::json!({"path": "1"})),
            ask(&approver, serde_json::json!({"path": "2"})),
        );
        assert_eq!(first, Decision::denied("first no".to_owned()));
        assert_eq!(second, Decision::approved());
        let text = screen.text();
        assert_eq!(text.matches("? approval needed").count(), 2, "{text}");
        drop(typing.join().unwrap());
    }

    #[tokio::test]
    async fn a_closed_input_refuses_and_a_dropped_question_says_why() {
        let screen = Screen::default();
        let approver = TerminalApprover::new(std::io::BufReader::new(&b""[..]), screen.clone());
        let decision = ask(&approver, serde_json::json!({})).await;
        assert!(
            matches!(decision, Decision::Unavailable { .. }),
            "{decision:?}"
        );
        // And every later question at once.
        let decision = ask(&approver, serde_json::json!({})).await;
        assert!(
            matches!(decision, Decision::Unavailable { .. }),
            "{decision:?}"
        );

        // A question whose call is cancelled stops, and says so.
        let (input, _person) = std::io::pipe().unwrap();
        let screen = Screen::default();
        let approver = TerminalApprover::new(std::io::BufReader::new(input), screen.clone());
        let ctx = ToolContext::new();
        let arguments = serde_json::json!({});
        let request = ApprovalRequest::new("delete_file", &arguments, "Delete?", &ctx);
        let waited = tokio::time::timeout(Duration::from_millis(100), approver.approve(&request));
        assert!(waited.await.is_err());
        assert!(
            screen
                .text()
                .contains("no longer waiting for an answer here"),
            "{}",
            screen.text()
        );
        ctx.cancellation().cancel();
        let waited = tokio::time::timeout(Duration::from_millis(100), approver.approve(&request));
        assert!(waited.await.is_err());
        assert!(
            screen.text().contains("was cancelled: it is not run"),
            "{}",
            screen.text()
        );
        // One that waited past its time says that.
        let fresh = ToolContext::new();
        let mut request = ApprovalRequest::new("delete_file", &arguments, "Delete?", &fresh);
        request.deadline = Some(Instant::now() + Duration::from_millis(50));
        let waited = tokio::time::timeout(Duration::from_millis(100), approver.approve(&request));
        assert!(waited.await.is_err());
        assert!(
            screen.text().contains("no answer in time"),
            "{}",
            screen.text()
        );
    }
}
