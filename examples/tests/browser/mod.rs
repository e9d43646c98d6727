//! Headless Chromium for the page tests: the binary (Debian's `chromium`, or `CHROMIUM`), and a
//! small client of the DevTools protocol over `--remote-debugging-pipe` (JSON messages ended by
//! NUL on the browser's file descriptors 3 and 4), so a test can open a page, wait for what it
//! shows, and click as a person does (trusted mouse events, not script clicks).
//!
//! A wait is told by the page: a promise in the page resolves once the expression holds, checked
//! at each change of the document (a `MutationObserver`), and the test awaits it.

#![allow(dead_code)]

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// Headless Chromium: `CHROMIUM`, else `chromium` on PATH. Missing is a failure, never a skip.
pub fn chromium() -> String {
    let bin = std::env::var("CHROMIUM").unwrap_or_else(|_| "chromium".to_owned());
    match Command::new(&bin).arg("--version").output() {
        Ok(out) if out.status.success() => bin,
        _ => panic!(
            "headless Chromium is needed for this test and `{bin}` does not run.\n\
             Install Debian's chromium: run `scripts/browser-env` (as root it runs \
             `apt-get install -y chromium`; otherwise run `sudo apt-get install -y chromium`), \
             or point CHROMIUM at a Chromium binary."
        ),
    }
}

/// A headless Chromium driven over its DevTools pipe, with one page open. Killed when dropped.
pub struct Browser {
    child: Child,
    commands: ChildStdin,
    replies: mpsc::Receiver<Value>,
    /// The browser's events (messages without an id) that came while a reply was awaited.
    events: VecDeque<Value>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Browser {
    /// Starts Chromium with a blank page of `width`×`height`.
    pub fn start(width: u32, height: u32) -> Self {
        let profile = tempfile::tempdir().unwrap();
        // The shell hands the browser our pipes as its fds 3 (commands) and 4 (replies).
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(r#"exec "$0" "$@" 3<&0 4>&1 </dev/null >/dev/null"#)
            .arg(chromium())
            .args([
                "--headless",
                // Chromium refuses to run as root with its sandbox; the pages are our own.
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--hide-scrollbars",
                "--remote-debugging-pipe",
                // A sandboxed frame (an MCP App's view) in the page's own process, where the
                // page's session reaches it (Chromium moves them to one of their own).
                "--disable-features=IsolateSandboxedIframes",
            ])
            .arg(format!("--window-size={width},{height}"))
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromium starts");
        let commands = child.stdin.take().expect("piped");
        let mut pipe = child.stdout.take().expect("piped");
        let (tx, replies) = mpsc::channel();
        std::thread::spawn(move || {
            let mut pending = Vec::new();
            let mut buf = [0u8; 65536];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                pending.extend_from_slice(&buf[..n]);
                while let Some(end) = pending.iter().position(|&b| b == 0) {
                    let message: Vec<u8> = pending.drain(..=end).collect();
                    if let Ok(value) = serde_json::from_slice::<Value>(&message[..end])
                        && tx.send(value).is_err()
                    {
                        return;
                    }
                }
            }
        });
        let mut browser = Self {
            child,
            commands,
            replies,
            events: VecDeque::new(),
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = browser.send(None, "Target.createTarget", json!({"url": "about:blank"}));
        let target = target["targetId"].as_str().expect("a target id").to_owned();
        let attached = browser.send(
            None,
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        browser.session = attached["sessionId"]
            .as_str()
            .expect("a session id")
            .to_owned();
        browser.call("Page.enable", json!({}));
        browser
    }

    /// Sends a command (to the page's session, unless `session` is `None`) and waits for its
    /// result, up to 30 s.
    fn send(&mut self, session: Option<&str>, method: &str, params: Value) -> Value {
        self.send_within(session, method, params, Duration::from_secs(30))
            .unwrap_or_else(|error| panic!("{method}: {error}"))
    }

    /// Sends a command and waits for its answer, up to `within`: its result, or the error the
    /// browser answered with. Events that come meanwhile are kept.
    fn send_within(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        within: Duration,
    ) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).unwrap();
        bytes.push(0);
        self.commands.write_all(&bytes).expect("the browser reads");
        self.commands.flush().unwrap();
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let reply = self
                .replies
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {method} from the browser"));
            if reply["id"] == id {
                return match reply.get("error") {
                    Some(error) => Err(error.clone()),
                    None => Ok(reply["result"].clone()),
                };
            }
            if reply.get("method").is_some() {
                self.events.push_back(reply);
            }
        }
    }

    /// Waits for the browser's next event (one kept, or the next to come), until `deadline`:
    /// whether one came.
    fn next_event(&mut self, deadline: Instant) -> bool {
        if self.events.pop_front().is_some() {
            return true;
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.replies.recv_timeout(left) {
                Ok(message) if message.get("method").is_some() => return true,
                Ok(_) => {}
                Err(_) => return false,
            }
        }
    }

    /// Sends a command to the page.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let session = self.session.clone();
        self.send(Some(&session), method, params)
    }

    /// Opens `url`.
    pub fn open(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
    }

    /// The value of a JavaScript expression in the page.
    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("{expression}: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// The value of a JavaScript expression in the document of the page's first child frame
    /// (an iframe), in a world of its own: it sees the frame's DOM, not its scripts' globals.
    pub fn eval_in_frame(&mut self, expression: &str) -> Value {
        let tree = self.call("Page.getFrameTree", json!({}));
        let frame = tree["frameTree"]["childFrames"][0]["frame"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("the page has no frame: {tree}"))
            .to_owned();
        let world = self.call(
            "Page.createIsolatedWorld",
            json!({"frameId": frame, "worldName": "test"}),
        );
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true,
                   "contextId": world["executionContextId"]}),
        );
        if let Some(exception) = result.get("exceptionDetails") {
            panic!("{expression}: {exception}");
        }
        result["result"]["value"].clone()
    }

    /// Waits (up to `within`) until `expression` is true in the page's first frame (one that
    /// throws, or a frame not there yet, is not): told by the frame's document as it changes;
    /// a frame that is not there yet, or whose document is replaced while the test waits, is
    /// waited for through the browser's next event (a frame attached, navigated or loaded).
    pub fn wait_in_frame(&mut self, expression: &str, within: Duration) {
        let deadline = Instant::now() + within;
        let body = |browser: &mut Self| {
            let tree = browser.call("Page.getFrameTree", json!({}));
            if tree["frameTree"]["childFrames"][0]["frame"]["id"].is_string() {
                browser.eval_in_frame("document.body ? document.body.outerHTML : ''")
            } else {
                json!("(no frame)")
            }
        };
        loop {
            self.events.clear();
            let tree = self.call("Page.getFrameTree", json!({}));
            let frame = tree["frameTree"]["childFrames"][0]["frame"]["id"].clone();
            let told = match frame.as_str() {
                Some(frame) => {
                    let session = self.session.clone();
                    let world = self.send_within(
                        Some(&session),
                        "Page.createIsolatedWorld",
                        json!({"frameId": frame, "worldName": "test"}),
                        Duration::from_secs(30),
                    );
                    world.and_then(|world| {
                        let left = deadline.saturating_duration_since(Instant::now());
                        self.send_within(
                            Some(&session),
                            "Runtime.evaluate",
                            json!({"expression": holds_within(expression, left),
                                   "returnByValue": true, "awaitPromise": true,
                                   "contextId": world["executionContextId"]}),
                            left + Duration::from_secs(30),
                        )
                    })
                }
                None => Err(json!("no frame yet")),
            };
            match told {
                Ok(result) if result["result"]["value"] == json!(true) => return,
                Ok(result) => panic!(
                    "`{expression}` never held in the frame ({result}); its body:\n{}",
                    body(self)
                ),
                Err(error) => {
                    if Instant::now() > deadline || !self.next_event(deadline) {
                        panic!(
                            "`{expression}` never held in the frame ({error}); its body:\n{}",
                            body(self)
                        );
                    }
                }
            }
        }
    }

    /// Clicks the middle of the element `selector` finds in the page's first frame, which
    /// `frame` (a selector in the page) shows, as a person does.
    pub fn click_in_frame(&mut self, frame: &str, selector: &str) {
        let outer = self.eval(&format!(
            "(() => {{ const f = document.querySelector({frame:?}); f.scrollIntoView({{block: 'start'}}); \
             const r = f.getBoundingClientRect(); return [r.left + f.clientLeft, r.top + f.clientTop]; }})()"
        ));
        let inner = self.eval_in_frame(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        let at = |v: &Value, i: usize| v[i].as_f64().unwrap_or_else(|| panic!("no `{selector}`"));
        let (x, y) = (at(&outer, 0) + at(&inner, 0), at(&outer, 1) + at(&inner, 1));
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Waits (up to `within`) until `expression` is true in the page (one that throws, as
    /// while the page loads, is not): told by the page's document as it changes. A document
    /// replaced while the test waits (a navigation) is waited in again after the browser's next
    /// event.
    pub fn wait_until(&mut self, expression: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            self.events.clear();
            let left = deadline.saturating_duration_since(Instant::now());
            let session = self.session.clone();
            let told = self.send_within(
                Some(&session),
                "Runtime.evaluate",
                json!({"expression": holds_within(expression, left),
                       "returnByValue": true, "awaitPromise": true}),
                left + Duration::from_secs(30),
            );
            match told {
                Ok(result) if result["result"]["value"] == json!(true) => return,
                Ok(result) => panic!(
                    "`{expression}` never held ({result}); the page:\n{}",
                    self.eval("document.body.outerHTML")
                ),
                Err(error) => {
                    if Instant::now() > deadline || !self.next_event(deadline) {
                        panic!(
                            "`{expression}` never held ({error}); the page:\n{}",
                            self.eval("document.body.outerHTML")
                        );
                    }
                }
            }
        }
    }

    /// Clicks the middle of the element `selector` finds, as a person does: the mouse moves
    /// there, presses and releases (events the page sees as trusted).
    pub fn click(&mut self, selector: &str) {
        let found = self.eval(&format!(
            "(() => {{ const e = document.querySelector({selector:?}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ));
        let (x, y) = match found.as_array().map(Vec::as_slice) {
            Some([x, y]) => (x.as_f64().unwrap(), y.as_f64().unwrap()),
            _ => panic!("nothing on the page matches `{selector}`"),
        };
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Types `text` into the element that has the focus.
    pub fn type_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({"text": text}));
    }

    /// A PNG of the page as it shows now.
    pub fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = shot["data"].as_str().expect("base64 data");
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, data)
            .expect("a PNG in base64")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A promise, for `Runtime.evaluate` to await, of whether `expression` holds in the document
/// within `within`: checked at once, then at each change of the document (a node, an attribute,
/// a text), until it holds or the time is up. One that throws does not hold.
fn holds_within(expression: &str, within: Duration) -> String {
    format!(
        r#"new Promise((resolve) => {{
  const holds = () => {{ try {{ return !!({expression}); }} catch {{ return false; }} }};
  if (holds()) return resolve(true);
  const observer = new MutationObserver(() => {{
    if (holds()) {{ observer.disconnect(); clearTimeout(timer); resolve(true); }}
  }});
  const timer = setTimeout(() => {{ observer.disconnect(); resolve(holds()); }}, {ms});
  observer.observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
}})"#,
        ms = within.as_millis()
    )
}
