//! The hub: turns [`ToolEvent`]s into [`PresenceEvent`]s, keeps the current run's recent ones
//! for pages that connect late, and fans them out to every open stream; and holds the calls
//! waiting for a person's answer on the page, until it comes or the call stops waiting.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, oneshot};

use tool_core::context::{ApprovalRequest, Decision};
use tool_core::context::{EventSink, ToolEvent};

use crate::question::{AnswerError, ApprovalEvent, ApprovalState};

/// How many events a late page is replayed, by default.
const DEFAULT_REPLAY: usize = 256;
/// How many frames an open stream may fall behind before it catches up from the replay.
const CHANNEL: usize = 1024;
/// The longest `text`, in characters (an ellipsis marks a cut).
const TEXT_CHARS: usize = 200;

/// Where a call is, in a [`PresenceEvent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The call started (`text` is empty).
    Started,
    /// The tool reported progress (`done`, `total`, and its message as `text`).
    Progress,
    /// The tool logged a message (`level`, and the message as `text`).
    Log,
    /// The call ended: `ok` says how; `text` is the one-line result or the error message.
    Finished,
}

/// One event for UIs, as `GET /events` sends it (the `data:` of an `event: tool`).
///
/// Every key is always present (`null` when it does not apply), so the shape is stable:
///
/// ```json
/// {"seq": 5, "call_id": "call_2", "tool": "get_current_time", "label": "Reading the clock",
///  "phase": "finished", "ok": false, "error_kind": "invalid_input",
///  "text": "`Mars/Olympus` is not an IANA time zone name; ...", "done": null, "total": null,
///  "level": null, "event": null, "elapsed_ms": 3}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PresenceEvent {
    /// The event's number: increasing, unique in the process (also the SSE `id`).
    pub seq: u64,
    /// The call's id (from the model's tool call, or generated; `outer/tool` for a call made by
    /// a tool).
    pub call_id: String,
    /// The tool's name (`null` if the call's start was not seen).
    pub tool: Option<String>,
    /// The tool's label, its UI text while it runs (`null` if the call's start was not seen).
    pub label: Option<String>,
    /// Where the call is.
    pub phase: Phase,
    /// `true` or `false` when finished, else `null`.
    pub ok: Option<bool>,
    /// The error kind (`invalid_input`, `timeout`, ...) when the call failed, else `null`.
    pub error_kind: Option<String>,
    /// One line, at most 200 characters: the progress or log message, the result (a string
    /// result as it is, other data as compact JSON) or the error message; empty when started.
    pub text: String,
    /// Units done, for progress.
    pub done: Option<u64>,
    /// Units in all, for progress when known.
    pub total: Option<u64>,
    /// The log level (`debug` ... `emergency`), for a log message.
    pub level: Option<String>,
    /// The result's UI event name, when the tool set one.
    pub event: Option<String>,
    /// Milliseconds since the call started (0 when started, or if its start was not seen).
    pub elapsed_ms: u64,
}

/// What a stream sends: a tool event, the start of a new run, or the end of the last one.
#[derive(Debug, Clone)]
pub(crate) struct Frame {
    /// The event's number (the SSE `id`).
    pub(crate) seq: u64,
    /// What it is.
    pub(crate) kind: FrameKind,
}

/// The kinds of [`Frame`].
#[derive(Debug, Clone)]
pub(crate) enum FrameKind {
    /// A tool event, serialized once for every stream.
    Tool(Arc<str>),
    /// A question to the person about a call, or what became of it.
    Approval(Arc<str>),
    /// A new run began: pages clear their cards.
    Reset,
    /// No more events will come ([`Presence::finish`]): streams end.
    End,
}

/// The tool events of a run, for UIs: an [`EventSink`] that keeps the run's recent events and
/// fans them out to the open `/events` streams. Cloning is cheap (one `Arc`).
///
/// ```
/// use std::sync::Arc;
/// use tool_presence::{Phase, Presence};
/// use tool_core::ToolContext;
/// let presence = Presence::new();
/// let ctx = ToolContext::builder().events(Arc::new(presence.clone())).build();
/// ctx.progress(1, Some(4), "a quarter");
/// let recent = presence.recent();
/// assert_eq!(recent[0].phase, Phase::Progress);
/// assert_eq!((recent[0].done, recent[0].total), (Some(1), Some(4)));
/// ```
#[derive(Clone)]
pub struct Presence {
    inner: Arc<Hub>,
}

struct Hub {
    state: Mutex<HubState>,
    sender: broadcast::Sender<Frame>,
    replay: usize,
}

#[derive(Default)]
struct HubState {
    /// The number of the last frame (0: none yet).
    last_seq: u64,
    /// The number of the current run's `Reset` frame (0: the first run).
    run_seq: u64,
    /// The current run's recent frames, oldest first, at most `replay` (with the tool event
    /// each one carries, if it carries one).
    recent: VecDeque<(Frame, Option<Arc<PresenceEvent>>)>,
    /// Calls started and not yet finished: tool, label, when.
    running: HashMap<String, Running>,
    /// [`Presence::finish`] was called (and no new run began since).
    finished: bool,
    /// The questions waiting for an answer, by number.
    questions: BTreeMap<u64, Question>,
    /// The number of the last question (0: none yet).
    last_question: u64,
}

/// A call waiting for the person's answer.
struct Question {
    /// Its last frame (sent to every page that connects while it waits).
    frame: Frame,
    event: ApprovalEvent,
    since: Instant,
    /// Where the answer goes: the waiting call.
    answer: oneshot::Sender<Decision>,
}

struct Running {
    tool: String,
    label: String,
    since: Instant,
}

impl fmt::Debug for Presence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.inner.lock();
        f.debug_struct("Presence")
            .field("replay", &self.inner.replay)
            .field("recent", &state.recent.len())
            .field("running", &state.running.len())
            .finish_non_exhaustive()
    }
}

impl Default for Presence {
    fn default() -> Self {
        Self::new()
    }
}

impl Presence {
    /// A hub that replays up to 256 recent events to a page that connects late.
    pub fn new() -> Self {
        Self::with_replay(DEFAULT_REPLAY)
    }

    /// A hub that replays up to `events` recent events (at least 1) to a page that connects late.
    pub fn with_replay(events: usize) -> Self {
        Self {
            inner: Arc::new(Hub {
                state: Mutex::new(HubState::default()),
                sender: broadcast::channel(CHANNEL).0,
                replay: events.max(1),
            }),
        }
    }

    /// Begins a new run: forgets the recent events and tells open pages to clear their cards.
    /// For binaries that serve several runs (one per prompt) from one hub.
    pub fn new_run(&self) {
        let mut state = self.inner.lock();
        state.last_seq += 1;
        state.run_seq = state.last_seq;
        state.recent.clear();
        state.running.clear();
        state.finished = false;
        let frame = Frame {
            seq: state.last_seq,
            kind: FrameKind::Reset,
        };
        // Sent under the lock, so streams see frames in `seq` order.
        let _ = self.inner.sender.send(frame);
        // Calls still waiting for an answer belong to the new run too: pages that cleared
        // their cards get them again.
        let ids: Vec<u64> = state.questions.keys().copied().collect();
        let now = Instant::now();
        for id in ids {
            let event = state.questions.get(&id).map(|q| ApprovalEvent {
                elapsed_ms: millis(now.saturating_duration_since(q.since)),
                ..q.event.clone()
            });
            if let Some(event) = event {
                self.send_question(&mut state, event);
            }
        }
    }

    /// Says that no more events will come (the run is over and no other will follow): open
    /// streams get an `end` event and close, and a page that connects later gets the run's
    /// recent events, then `end`. Pages keep their cards; the server keeps serving them.
    /// [`Presence::new_run`] starts streaming again.
    pub fn finish(&self) {
        let mut state = self.inner.lock();
        if state.finished {
            return;
        }
        state.finished = true;
        let frame = Frame {
            seq: state.last_seq,
            kind: FrameKind::End,
        };
        let _ = self.inner.sender.send(frame);
    }

    /// Whether [`Presence::finish`] was called (and no new run began since).
    pub fn is_finished(&self) -> bool {
        self.inner.lock().finished
    }

    /// The current run's recent events, oldest first (what a page connecting now is replayed).
    pub fn recent(&self) -> Vec<PresenceEvent> {
        let state = self.inner.lock();
        state
            .recent
            .iter()
            .filter_map(|(_, e)| e.as_deref().cloned())
            .collect()
    }

    /// The calls waiting for an answer now, oldest first.
    pub fn pending_approvals(&self) -> Vec<ApprovalEvent> {
        let state = self.inner.lock();
        let now = Instant::now();
        state
            .questions
            .values()
            .map(|q| ApprovalEvent {
                elapsed_ms: millis(now.saturating_duration_since(q.since)),
                ..q.event.clone()
            })
            .collect()
    }

    /// Answers the waiting call `id` (an [`ApprovalEvent`]'s `id`) with `decision`, which must
    /// be [`Decision::Approved`] or [`Decision::Denied`]: the call goes on with it, and pages
    /// show the answer. For applications with a UI of their own; the page's buttons answer
    /// through `POST /approvals/{id}`. The answer must come from the person, never from
    /// anything a model can write.
    pub fn answer(&self, id: u64, decision: Decision) -> Result<ApprovalState, AnswerError> {
        let (state_word, remember, reason) = match &decision {
            Decision::Approved { remember } => (
                ApprovalState::Approved,
                Some(crate::question::remember_word(*remember)),
                None,
            ),
            Decision::Denied { reason } => (ApprovalState::Denied, None, reason.clone()),
            _ => return Err(AnswerError::NotAnAnswer),
        };
        let mut state = self.inner.lock();
        let question = state
            .questions
            .remove(&id)
            .ok_or(AnswerError::NotWaiting(id))?;
        let now = Instant::now();
        let event = ApprovalEvent {
            state: state_word,
            remember: remember.map(str::to_owned),
            reason,
            elapsed_ms: millis(now.saturating_duration_since(question.since)),
            ..question.event
        };
        if question.answer.send(decision).is_err() {
            // The waiting call is gone without having withdrawn its question: the answer is
            // too late.
            let event = ApprovalEvent {
                state: ApprovalState::Withdrawn,
                remember: None,
                reason: None,
                ..event
            };
            self.send_question(&mut state, event);
            return Err(AnswerError::NotWaiting(id));
        }
        self.send_question(&mut state, event);
        Ok(state_word)
    }

    /// Puts a question about `request` to the pages: its number, and where the answer will
    /// come.
    pub(crate) fn ask(
        &self,
        request: &ApprovalRequest<'_>,
        message: String,
    ) -> (u64, oneshot::Receiver<Decision>) {
        let (sender, receiver) = oneshot::channel();
        let now = Instant::now();
        let mut state = self.inner.lock();
        state.last_question += 1;
        let id = state.last_question;
        let event = ApprovalEvent {
            seq: 0,
            id,
            call_id: request.call_id.to_owned(),
            tool: request.tool.to_owned(),
            label: request.label.to_owned(),
            message,
            arguments: request.arguments.clone(),
            state: ApprovalState::Pending,
            remember: None,
            reason: None,
            timeout_ms: request
                .deadline
                .map(|deadline| millis(deadline.saturating_duration_since(now))),
            elapsed_ms: 0,
        };
        let frame = self.send_question(&mut state, event.clone());
        state.questions.insert(
            id,
            Question {
                frame,
                event,
                since: now,
                answer: sender,
            },
        );
        (id, receiver)
    }

    /// Ends question `id` unanswered, as `why` says (the call was cancelled, timed out, or no
    /// longer waits here), if it still waits.
    pub(crate) fn withdraw(&self, id: u64, why: ApprovalState) {
        let mut state = self.inner.lock();
        let Some(question) = state.questions.remove(&id) else {
            return;
        };
        let now = Instant::now();
        let event = ApprovalEvent {
            state: why,
            elapsed_ms: millis(now.saturating_duration_since(question.since)),
            ..question.event
        };
        self.send_question(&mut state, event);
    }

    /// Numbers, keeps and sends a frame for `event`; a question that still waits keeps it as
    /// its last frame.
    fn send_question(&self, state: &mut HubState, mut event: ApprovalEvent) -> Frame {
        let seq = state.last_seq + 1;
        event.seq = seq;
        let json: Arc<str> = match serde_json::to_string(&event) {
            Ok(json) => json.into(),
            // Strings and JSON values only: it always serializes.
            Err(_) => Arc::from("{}"),
        };
        state.last_seq = seq;
        let frame = Frame {
            seq,
            kind: FrameKind::Approval(json),
        };
        if let Some(question) = state.questions.get_mut(&event.id) {
            question.frame = frame.clone();
            question.event.seq = seq;
        }
        self.keep(state, frame.clone(), None);
        let _ = self.inner.sender.send(frame.clone());
        frame
    }

    /// Keeps `frame` in the replay, dropping the oldest when it is full.
    fn keep(&self, state: &mut HubState, frame: Frame, event: Option<Arc<PresenceEvent>>) {
        if state.recent.len() >= self.inner.replay {
            state.recent.pop_front();
        }
        state.recent.push_back((frame, event));
    }

    /// Records and sends one event.
    fn publish(&self, event: &ToolEvent) {
        let now = Instant::now();
        let mut state = self.inner.lock();
        let seq = state.last_seq + 1;
        // An event of a kind newer than this page shows nothing.
        let Some(event) = presence_event(&mut state.running, event, seq, now) else {
            return;
        };
        let json: Arc<str> = match serde_json::to_string(&event) {
            Ok(json) => json.into(),
            Err(e) => {
                tracing::warn!(error = %e, "a presence event could not be serialized");
                return;
            }
        };
        state.last_seq = seq;
        let frame = Frame {
            seq,
            kind: FrameKind::Tool(json),
        };
        self.keep(&mut state, frame.clone(), Some(Arc::new(event)));
        // No open stream is not an error. Sent under the lock, so streams see `seq` order.
        let _ = self.inner.sender.send(frame);
    }

    /// What a stream that has seen up to `last` (`None`: nothing) must be sent first, and a
    /// receiver of every frame after those. Taken together under the lock: no gap, no repeat.
    pub(crate) fn subscribe_after(
        &self,
        last: Option<u64>,
    ) -> (Vec<Frame>, broadcast::Receiver<Frame>) {
        let state = self.inner.lock();
        let backlog = catch_up(&state, last);
        (backlog, self.inner.sender.subscribe())
    }

    /// What a stream that has seen up to `last` must be sent to catch up (after it lagged).
    pub(crate) fn catch_up(&self, last: u64) -> Vec<Frame> {
        catch_up(&self.inner.lock(), Some(last))
    }
}

impl Hub {
    fn lock(&self) -> MutexGuard<'_, HubState> {
        // The state is consistent after every statement, so a panic elsewhere does not spoil it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl EventSink for Presence {
    fn emit(&self, event: &ToolEvent) {
        self.publish(event);
    }
}

/// The frames after `last`; when those are not all still kept (or `last` is from another run,
/// or another process), a `Reset` and the whole run's recent frames instead. Every call still
/// waiting for an answer is among them, even when its question is older than the replay
/// keeps. Then `End` if the hub is finished.
fn catch_up(state: &HubState, last: Option<u64>) -> Vec<Frame> {
    let mut frames = frames_after(state, last);
    let from_scratch =
        last.is_none() || matches!(frames.first(), Some(f) if matches!(f.kind, FrameKind::Reset));
    if from_scratch {
        // Questions the replay no longer keeps are older than every frame it does.
        let kept: std::collections::HashSet<u64> = frames.iter().map(|f| f.seq).collect();
        let missing: Vec<Frame> = state
            .questions
            .values()
            .filter(|q| !kept.contains(&q.frame.seq))
            .map(|q| q.frame.clone())
            .collect();
        let at =
            usize::from(matches!(frames.first(), Some(f) if matches!(f.kind, FrameKind::Reset)));
        frames.splice(at..at, missing);
    }
    if state.finished {
        frames.push(Frame {
            seq: state.last_seq,
            kind: FrameKind::End,
        });
    }
    frames
}

fn frames_after(state: &HubState, last: Option<u64>) -> Vec<Frame> {
    let recent = state.recent.iter().map(|(frame, _)| frame.clone());
    let Some(last) = last else {
        return recent.collect();
    };
    let oldest = state
        .recent
        .front()
        .map_or(state.last_seq + 1, |(f, _)| f.seq);
    let whole_run = last > state.last_seq || last < state.run_seq || last + 1 < oldest;
    if !whole_run {
        return recent.filter(|frame| frame.seq > last).collect();
    }
    let reset = Frame {
        seq: state.run_seq,
        kind: FrameKind::Reset,
    };
    std::iter::once(reset)
        .chain(recent.filter(|frame| frame.seq > state.run_seq))
        .collect()
}

/// The UI view of `event`, numbered `seq`; tracks which calls run, to give every event its
/// tool, label and elapsed time. `None` for a kind of event the page has no card part for.
fn presence_event(
    running: &mut HashMap<String, Running>,
    event: &ToolEvent,
    seq: u64,
    now: Instant,
) -> Option<PresenceEvent> {
    let blank = |call_id: &str, phase| PresenceEvent {
        seq,
        call_id: call_id.to_owned(),
        tool: None,
        label: None,
        phase,
        ok: None,
        error_kind: None,
        text: String::new(),
        done: None,
        total: None,
        level: None,
        event: None,
        elapsed_ms: 0,
    };
    // Fills in what is known about the call; `finished` forgets it.
    let known = |running: &mut HashMap<String, Running>, mut e: PresenceEvent, finished: bool| {
        let call = if finished {
            running.remove(&e.call_id)
        } else {
            running.get(&e.call_id).map(|r| Running {
                tool: r.tool.clone(),
                label: r.label.clone(),
                since: r.since,
            })
        };
        if let Some(call) = call {
            e.elapsed_ms = millis(now.saturating_duration_since(call.since));
            e.tool.get_or_insert(call.tool);
            e.label = Some(call.label);
        }
        e
    };
    Some(match event {
        ToolEvent::Started {
            call_id,
            tool,
            label,
            ..
        } => {
            running.insert(
                call_id.clone(),
                Running {
                    tool: tool.clone(),
                    label: label.clone(),
                    since: now,
                },
            );
            PresenceEvent {
                tool: Some(tool.clone()),
                label: Some(label.clone()),
                ..blank(call_id, Phase::Started)
            }
        }
        ToolEvent::Progress {
            call_id,
            done,
            total,
            message,
        } => {
            let text = if message.trim().is_empty() {
                match total {
                    Some(total) => format!("{done} of {total}"),
                    None => done.to_string(),
                }
            } else {
                one_line(message)
            };
            let e = PresenceEvent {
                text,
                done: Some(*done),
                total: *total,
                ..blank(call_id, Phase::Progress)
            };
            known(running, e, false)
        }
        ToolEvent::Log {
            call_id,
            level,
            message,
        } => {
            let e = PresenceEvent {
                text: one_line(message),
                level: Some(level.as_str().to_owned()),
                ..blank(call_id, Phase::Log)
            };
            known(running, e, false)
        }
        ToolEvent::Finished {
            call_id,
            tool,
            event,
            payload,
            ..
        } => {
            let text = match payload {
                Some(serde_json::Value::String(s)) => one_line(s),
                Some(data) => one_line(&data.to_string()),
                None => String::new(),
            };
            let e = PresenceEvent {
                tool: Some(tool.clone()),
                ok: Some(true),
                text,
                event: event.clone(),
                ..blank(call_id, Phase::Finished)
            };
            known(running, e, true)
        }
        ToolEvent::Failed {
            call_id,
            tool,
            kind,
            message,
            ..
        } => {
            let e = PresenceEvent {
                tool: Some(tool.clone()),
                ok: Some(false),
                error_kind: Some(kind.as_str().to_owned()),
                text: one_line(message),
                ..blank(call_id, Phase::Finished)
            };
            known(running, e, true)
        }
        _ => return None,
    })
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The first non-blank line of `text`, trimmed, cut to [`TEXT_CHARS`] characters (an ellipsis
/// marks a cut, also of the lines after it).
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = lines.next().unwrap_or_default();
    let more = lines.next().is_some();
    match line.char_indices().nth(TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None if more => format!("{line} …"),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tool_core::{ToolContext, context::LogLevel, error::ErrorKind};

    fn started(id: &str) -> ToolEvent {
        crate::lifecycle::started(id, "get_current_time", "Reading the clock")
    }

    fn seqs(frames: &[Frame]) -> Vec<(u64, bool)> {
        frames
            .iter()
            .map(|f| (f.seq, matches!(f.kind, FrameKind::Reset)))
            .collect()
    }

    fn is_end(frame: Option<&Frame>) -> bool {
        matches!(frame.map(|f| &f.kind), Some(FrameKind::End))
    }

    #[test]
    fn event_json_has_the_documented_shape() {
        let presence = Presence::new();
        presence.emit(&started("call_1"));
        presence.emit(&ToolEvent::Progress {
            call_id: "call_1".into(),
            done: 1,
            total: Some(2),
            message: "halfway".into(),
        });
        presence.emit(&crate::lifecycle::ended(
            "call_1",
            "get_current_time",
            || {
                Ok(
                    tool_core::ToolOutput::new(serde_json::json!({"timezone": "Asia/Tokyo"}))
                        .with_event("clock"),
                )
            },
        ));
        let (frames, _rx) = presence.subscribe_after(None);
        let json: Vec<serde_json::Value> = frames
            .iter()
            .map(|f| match &f.kind {
                FrameKind::Tool(json) => serde_json::from_str(json).unwrap(),
                other => panic!("no {other:?} expected"),
            })
            .collect();
        let keys = [
            "seq",
            "call_id",
            "tool",
            "label",
            "phase",
            "ok",
            "error_kind",
            "text",
            "done",
            "total",
            "level",
            "event",
            "elapsed_ms",
        ];
        for event in &json {
            let object = event.as_object().unwrap();
            let mut have: Vec<&str> = object.keys().map(String::as_str).collect();
            have.sort_unstable();
            let mut want = keys.to_vec();
            want.sort_unstable();
            assert_eq!(have, want, "{event}");
        }
        assert_eq!(
            json[0],
            serde_json::json!({
                "seq": 1, "call_id": "call_1", "tool": "get_current_time",
                "label": "Reading the clock", "phase": "started", "ok": null,
                "error_kind": null, "text": "", "done": null, "total": null, "level": null,
                "event": null, "elapsed_ms": 0
            })
        );
        assert_eq!(json[1]["phase"], "progress");
        assert_eq!(json[1]["label"], "Reading the clock");
        assert_eq!(
            (json[1]["done"].clone(), json[1]["total"].clone()),
            (1.into(), 2.into())
        );
        assert_eq!(json[1]["text"], "halfway");
        assert_eq!(json[2]["phase"], "finished");
        assert_eq!(json[2]["ok"], true);
        assert_eq!(json[2]["event"], "clock");
        assert_eq!(json[2]["text"], r#"{"timezone":"Asia/Tokyo"}"#);
        assert_eq!(json[2]["label"], "Reading the clock");
        // It parses back.
        let back: PresenceEvent = serde_json::from_value(json[2].clone()).unwrap();
        assert_eq!(back, presence.recent()[2]);
    }

    #[test]
    fn failures_and_logs_are_finished_and_log_phases() {
        let presence = Presence::new();
        let ctx = ToolContext::builder()
            .call_id("call_9")
            .events(Arc::new(presence.clone()))
            .build();
        presence.emit(&started("call_9"));
        ctx.log(LogLevel::Warning, "first line\nsecond line");
        presence.emit(&crate::lifecycle::ended(
            "call_9",
            "get_current_time",
            || {
                Err(tool_core::ToolError::new(
                    ErrorKind::InvalidInput,
                    "`Mars` is not an IANA time zone name",
                ))
            },
        ));
        let recent = presence.recent();
        assert_eq!(recent[1].phase, Phase::Log);
        assert_eq!(recent[1].level.as_deref(), Some("warning"));
        assert_eq!(recent[1].text, "first line …");
        let failed = &recent[2];
        assert_eq!(failed.phase, Phase::Finished);
        assert_eq!(failed.ok, Some(false));
        assert_eq!(failed.error_kind.as_deref(), Some("invalid_input"));
        assert_eq!(failed.text, "`Mars` is not an IANA time zone name");
        assert_eq!(failed.label.as_deref(), Some("Reading the clock"));
    }

    #[test]
    fn an_event_for_an_unseen_call_still_names_what_it_can() {
        let presence = Presence::new();
        presence.emit(&crate::lifecycle::ended("late", "read_file", || {
            Ok(tool_core::ToolOutput::new("x".repeat(500).into()))
        }));
        let e = &presence.recent()[0];
        assert_eq!(e.tool.as_deref(), Some("read_file"));
        assert_eq!(e.label, None);
        assert_eq!(e.elapsed_ms, 0);
        assert_eq!(e.text.chars().count(), TEXT_CHARS + 1);
        assert!(e.text.ends_with('…'));
    }

    #[test]
    fn replay_keeps_only_the_most_recent_events() {
        let presence = Presence::with_replay(3);
        for i in 0..10 {
            presence.emit(&started(&format!("call_{i}")));
        }
        let recent = presence.recent();
        let ids: Vec<&str> = recent.iter().map(|e| e.call_id.as_str()).collect();
        assert_eq!(ids, ["call_7", "call_8", "call_9"]);
        let (frames, _) = presence.subscribe_after(None);
        assert_eq!(seqs(&frames), [(8, false), (9, false), (10, false)]);
        // A page that saw up to 8 gets what it missed ...
        assert_eq!(seqs(&presence.catch_up(8)), [(9, false), (10, false)]);
        // ... one that missed more than is kept starts the run over.
        assert_eq!(
            seqs(&presence.catch_up(3)),
            [(0, true), (8, false), (9, false), (10, false)]
        );
        // An id from the future (another process) also starts over.
        assert_eq!(seqs(&presence.catch_up(99))[0], (0, true));
        assert!(presence.catch_up(10).is_empty());
    }

    #[test]
    fn a_new_run_forgets_the_last_one() {
        let presence = Presence::new();
        presence.emit(&started("a"));
        let (_, mut rx) = presence.subscribe_after(None);
        presence.new_run();
        assert!(matches!(
            rx.try_recv().map(|f| f.kind),
            Ok(FrameKind::Reset)
        ));
        assert!(presence.recent().is_empty());
        presence.emit(&started("b"));
        // A page from the last run is told to clear its cards.
        assert_eq!(seqs(&presence.catch_up(1)), [(2, true), (3, false)]);
        assert_eq!(seqs(&presence.catch_up(2)), [(3, false)]);
        let (frames, _) = presence.subscribe_after(None);
        assert_eq!(seqs(&frames), [(3, false)]);
    }

    #[test]
    fn a_finished_hub_ends_streams_after_the_replay() {
        let presence = Presence::new();
        presence.emit(&started("a"));
        let (_, mut rx) = presence.subscribe_after(None);
        assert!(!presence.is_finished());
        presence.finish();
        presence.finish(); // once is enough
        assert!(presence.is_finished());
        assert!(matches!(rx.try_recv().map(|f| f.kind), Ok(FrameKind::End)));
        assert!(rx.try_recv().is_err());
        // A page that connects later gets the cards, then the end.
        let (frames, _) = presence.subscribe_after(None);
        assert_eq!(frames.len(), 2);
        assert!(is_end(frames.last()));
        assert!(is_end(presence.catch_up(1).last()));
        // A new run streams again.
        presence.new_run();
        assert!(!presence.is_finished());
        let (frames, _) = presence.subscribe_after(None);
        assert!(frames.is_empty());
    }

    #[test]
    fn one_line_cuts_long_and_multi_line_text() {
        assert_eq!(one_line("  \n ok \n"), "ok");
        assert_eq!(one_line("a\nb"), "a …");
        assert_eq!(one_line(""), "");
        let long = "é".repeat(300);
        assert_eq!(one_line(&long).chars().count(), TEXT_CHARS + 1);
    }
}
