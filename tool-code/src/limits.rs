//! What a script may spend, and the errors that say which limit it reached.

use std::time::Duration;

/// What one script may spend. Every limit ends the script with a [`LimitError`] naming it,
/// which a model can act on (print less, call fewer tools, loop less).
///
/// ```
/// use std::time::Duration;
/// let limits = tool_code::CodeLimits::default()
///     .cpu_time(Duration::from_secs(2))
///     .max_tool_calls(20);
/// assert_eq!(limits.max_tool_calls, 20);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CodeLimits {
    /// Time the interpreter may run the script, not counting the time its tool calls take.
    pub cpu_time: Duration,
    /// Time the whole run may take, tool calls (and a person's approval of one) included.
    pub wall_time: Duration,
    /// Bytes a script may hold. In a [worker](crate::Sandbox::Worker), everything it holds;
    /// [in this process](crate::Sandbox::InProcess), any one value built at once (like
    /// `"x" * 10**9`), while what it builds piece by piece is bounded by `cpu_time` alone.
    pub max_memory: usize,
    /// How deep its function calls may nest.
    pub max_recursion: usize,
    /// How many tools it may call.
    pub max_tool_calls: usize,
    /// Bytes of printed output kept.
    pub max_output: usize,
    /// Bytes of its return value, as JSON.
    pub max_result: usize,
    /// Bytes of its source.
    pub max_script: usize,
}

impl Default for CodeLimits {
    /// 5 s of interpreter time within 60 s in all, 64 MiB of memory, recursion 200 deep, 50
    /// tool calls, 64 KiB printed and returned, a 64 KiB script.
    fn default() -> Self {
        Self {
            cpu_time: Duration::from_secs(5),
            wall_time: Duration::from_secs(60),
            max_memory: 64 << 20,
            max_recursion: 200,
            max_tool_calls: 50,
            max_output: 64 << 10,
            max_result: 64 << 10,
            max_script: 64 << 10,
        }
    }
}

impl CodeLimits {
    /// Sets [`cpu_time`](Self::cpu_time).
    pub fn cpu_time(mut self, limit: Duration) -> Self {
        self.cpu_time = limit;
        self
    }

    /// Sets [`wall_time`](Self::wall_time).
    pub fn wall_time(mut self, limit: Duration) -> Self {
        self.wall_time = limit;
        self
    }

    /// Sets [`max_memory`](Self::max_memory).
    pub fn max_memory(mut self, bytes: usize) -> Self {
        self.max_memory = bytes;
        self
    }

    /// Sets [`max_recursion`](Self::max_recursion).
    pub fn max_recursion(mut self, depth: usize) -> Self {
        self.max_recursion = depth;
        self
    }

    /// Sets [`max_tool_calls`](Self::max_tool_calls).
    pub fn max_tool_calls(mut self, calls: usize) -> Self {
        self.max_tool_calls = calls;
        self
    }

    /// Sets [`max_output`](Self::max_output).
    pub fn max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }

    /// Sets [`max_result`](Self::max_result).
    pub fn max_result(mut self, bytes: usize) -> Self {
        self.max_result = bytes;
        self
    }

    /// Sets [`max_script`](Self::max_script).
    pub fn max_script(mut self, bytes: usize) -> Self {
        self.max_script = bytes;
        self
    }
}

/// Which limit a script reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// [`CodeLimits::cpu_time`].
    CpuTime,
    /// [`CodeLimits::wall_time`].
    WallTime,
    /// [`CodeLimits::max_memory`].
    Memory,
    /// [`CodeLimits::max_recursion`].
    Recursion,
    /// [`CodeLimits::max_tool_calls`].
    ToolCalls,
    /// [`CodeLimits::max_output`].
    Output,
    /// [`CodeLimits::max_result`].
    Result,
    /// [`CodeLimits::max_script`].
    Script,
}

impl Limit {
    /// The limit's snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CpuTime => "cpu_time",
            Self::WallTime => "wall_time",
            Self::Memory => "max_memory",
            Self::Recursion => "max_recursion",
            Self::ToolCalls => "max_tool_calls",
            Self::Output => "max_output",
            Self::Result => "max_result",
            Self::Script => "max_script",
        }
    }

    /// What a model can do about it.
    fn advice(self) -> &'static str {
        match self {
            Self::CpuTime | Self::WallTime => "do less work in one script, or split it",
            Self::Memory => "build smaller values",
            Self::Recursion => "use a loop instead of deep recursion",
            Self::ToolCalls => "call fewer tools in one script, or split it",
            Self::Output => "print less: filter or summarise before printing",
            Self::Result => "return less: filter or summarise the result",
            Self::Script => "write a shorter script",
        }
    }
}

/// A script stopped by one of its limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[error("the script reached its {} limit ({detail}); {}", limit.as_str(), limit.advice())]
pub struct LimitError {
    /// Which.
    pub limit: Limit,
    /// The limit and what was used, in words.
    pub detail: String,
}
