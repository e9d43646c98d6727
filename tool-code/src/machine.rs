//! The interpreter as a state machine: a script starts, stops at each thing it needs from the
//! host (an [`Event`]), and goes on with the host's [`Answer`]. The same machine runs in this
//! process and in a worker process; what crosses between them is serialisable.

use monty::{MontyRun, RunProgress};
use monty_types::{
    CompileOptions, ExcType, ExtFunctionResult, MontyException, MontyObject, NameLookupResult,
    PrintWriter, PrintWriterCallback, ResourceLimits, ResourceTracker,
};
use serde::{Deserialize, Serialize};

/// The file name tracebacks give a script.
const SCRIPT_NAME: &str = "script.py";

/// The message of the error `print` raises past the output limit.
pub(crate) const PRINT_OVERFLOW: &str = "printed output is over the script's max_output limit";

/// What the script needs from the host.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Event {
    /// It called `name` (not yet awaited).
    Call {
        call_id: u32,
        name: String,
        args: Vec<MontyObject>,
        kwargs: Vec<(MontyObject, MontyObject)>,
    },
    /// It awaits these calls.
    Await(Vec<u32>),
    /// It named something it never defined (`on_object`: an attribute of a host object).
    Lookup { name: String, on_object: bool },
    /// It asked for the filesystem, the environment or the clock.
    Os,
    /// It ended with this value.
    Complete(MontyObject),
}

/// What the host answers an [`Event`] with.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Answer {
    /// To a call: its result, at once.
    Now(Reply),
    /// To a call: a future, resolved when awaited.
    Later,
    /// To a call: an exception no handler in the script may catch; the script ends.
    Abort(MontyException),
    /// To [`Event::Await`]: each awaited call's result.
    Resolved(Vec<(u32, Reply)>),
    /// To a lookup: the value, or `None` for a `NameError`.
    Name(Option<MontyObject>),
}

/// A function's result as the script sees it.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Reply {
    Value(MontyObject),
    Raise(MontyException),
    /// No function of this name: a `NameError`.
    NotFound(String),
}

impl From<Reply> for ExtFunctionResult {
    fn from(reply: Reply) -> Self {
        match reply {
            Reply::Value(v) => Self::Return(v),
            Reply::Raise(e) => Self::Error(e),
            Reply::NotFound(name) => Self::NotFound(name),
        }
    }
}

/// Why a step ended the script.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Failure {
    /// It did not compile.
    Compile(MontyException),
    /// It raised, or reached a limit the interpreter keeps.
    Run(MontyException),
}

/// One step's outcome: the next event or the end, and what the step printed.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Outcome {
    pub result: Result<Event, Failure>,
    pub printed: String,
    /// Whether a `print` was refused for want of room.
    pub overflowed: bool,
}

/// The interpreter's limits for a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Budget {
    pub limits: ResourceLimits,
    /// Bytes a script may print in all.
    pub output: usize,
}

/// A script between steps.
pub(crate) struct Machine {
    /// Where it stopped; `None` once it ended.
    progress: Option<RunProgress>,
    /// Bytes it may still print.
    room: usize,
}

impl Machine {
    /// Compiles and starts `script`.
    pub fn start(script: String, budget: Budget) -> (Self, Outcome) {
        let mut machine = Self {
            progress: None,
            room: budget.output,
        };
        let compiled =
            match MontyRun::new(script, SCRIPT_NAME, Vec::new(), CompileOptions::default()) {
                Ok(compiled) => compiled,
                Err(e) => {
                    let outcome = Outcome {
                        result: Err(Failure::Compile(e)),
                        printed: String::new(),
                        overflowed: false,
                    };
                    return (machine, outcome);
                }
            };
        let tracker = ResourceTracker::new(budget.limits);
        let outcome = machine.step(|print| compiled.start(Vec::new(), tracker, print));
        (machine, outcome)
    }

    /// Goes on with the host's answer to the last event.
    pub fn answer(&mut self, answer: Answer) -> Outcome {
        let Some(progress) = self.progress.take() else {
            return self.misuse("the script has ended");
        };
        match (progress, answer) {
            (RunProgress::FunctionCall(call), Answer::Now(reply)) => {
                self.step(|print| call.resume(ExtFunctionResult::from(reply), print))
            }
            (RunProgress::FunctionCall(call), Answer::Later) => {
                self.step(|print| call.resume_pending(print))
            }
            (RunProgress::FunctionCall(call), Answer::Abort(e)) => {
                self.step(|print| call.abort(e, print))
            }
            (RunProgress::ResolveFutures(futures), Answer::Resolved(results)) => {
                let results = results.into_iter().map(|(id, r)| (id, r.into())).collect();
                self.step(|print| futures.resume(results, print))
            }
            (RunProgress::NameLookup(lookup), Answer::Name(value)) => {
                let result = value.map_or(NameLookupResult::Undefined, NameLookupResult::Value);
                self.step(|print| lookup.resume(result, print))
            }
            (RunProgress::OsCall(call), Answer::Now(reply)) => {
                self.step(|print| call.resume(ExtFunctionResult::from(reply), print))
            }
            (progress, answer) => {
                self.progress = Some(progress);
                self.misuse(&format!("{answer:?} does not answer the last event"))
            }
        }
    }

    fn misuse(&self, what: &str) -> Outcome {
        Outcome {
            result: Err(Failure::Run(MontyException::runtime_error(what))),
            printed: String::new(),
            overflowed: false,
        }
    }

    /// Runs the interpreter to its next stop, collecting what it prints.
    fn step(
        &mut self,
        run: impl FnOnce(PrintWriter<'_>) -> Result<RunProgress, MontyException>,
    ) -> Outcome {
        let mut printer = Printer {
            text: String::new(),
            room: self.room,
            overflowed: false,
        };
        let result = run(PrintWriter::Callback(&mut printer));
        self.room = printer.room;
        let result = match result {
            Err(e) => Err(Failure::Run(e)),
            Ok(RunProgress::Complete(value)) => Ok(Event::Complete(value)),
            Ok(progress) => {
                let event = event(&progress);
                self.progress = Some(progress);
                Ok(event)
            }
        };
        Outcome {
            result,
            printed: printer.text,
            overflowed: printer.overflowed,
        }
    }
}

/// The event a stop is, without the interpreter's state.
fn event(progress: &RunProgress) -> Event {
    match progress {
        RunProgress::FunctionCall(call) => Event::Call {
            call_id: call.call_id,
            name: call.function_name.clone(),
            args: call.args.clone(),
            kwargs: call.kwargs.clone(),
        },
        RunProgress::ResolveFutures(futures) => Event::Await(futures.pending_call_ids().to_vec()),
        RunProgress::NameLookup(lookup) => Event::Lookup {
            name: lookup.name.clone(),
            on_object: lookup.object_id().is_some(),
        },
        RunProgress::OsCall(_) => Event::Os,
        RunProgress::Complete(value) => Event::Complete(value.clone()),
    }
}

/// Collects what a step prints, up to the room left.
struct Printer {
    text: String,
    room: usize,
    overflowed: bool,
}

impl Printer {
    fn write(&mut self, text: &str) -> Result<(), MontyException> {
        if text.len() <= self.room {
            self.text.push_str(text);
            self.room -= text.len();
            return Ok(());
        }
        let mut end = self.room;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        self.text.push_str(&text[..end]);
        self.room = 0;
        self.overflowed = true;
        Err(MontyException::new(
            ExcType::MemoryError,
            Some(PRINT_OVERFLOW.to_owned()),
        ))
    }
}

impl PrintWriterCallback for Printer {
    fn stdout_write(&mut self, output: std::borrow::Cow<'_, str>) -> Result<(), MontyException> {
        self.write(&output)
    }

    fn stdout_push(&mut self, end: char) -> Result<(), MontyException> {
        self.write(end.encode_utf8(&mut [0; 4]))
    }
}
