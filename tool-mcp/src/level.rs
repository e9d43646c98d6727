//! MCP's log levels and tool-core's, one for one: the one table that pairs them.

use rmcp::model::LoggingLevel;
use tool_core::context::LogLevel;

/// Each of tool-core's levels ([`LogLevel::ALL`], in its order) beside MCP's.
const LEVELS: [(LogLevel, LoggingLevel); 8] = [
    (LogLevel::Debug, LoggingLevel::Debug),
    (LogLevel::Info, LoggingLevel::Info),
    (LogLevel::Notice, LoggingLevel::Notice),
    (LogLevel::Warning, LoggingLevel::Warning),
    (LogLevel::Error, LoggingLevel::Error),
    (LogLevel::Critical, LoggingLevel::Critical),
    (LogLevel::Alert, LoggingLevel::Alert),
    (LogLevel::Emergency, LoggingLevel::Emergency),
];

pub(super) fn to_mcp_level(level: LogLevel) -> LoggingLevel {
    LEVELS
        .get(level as usize)
        .map_or(LoggingLevel::Debug, |(_, mcp)| *mcp)
}

pub(super) fn from_mcp_level(level: LoggingLevel) -> LogLevel {
    LEVELS
        .iter()
        .find(|(_, mcp)| *mcp == level)
        .map_or(LogLevel::Debug, |(ours, _)| *ours)
}

/// A level kept as `level as u8` (in an atomic), back; `Debug` for a number that is none.
pub(super) fn from_index(n: u8) -> LogLevel {
    LogLevel::ALL
        .get(usize::from(n))
        .copied()
        .unwrap_or(LogLevel::Debug)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table pairs each level with MCP's of the same name, in tool-core's order.
    #[test]
    fn each_level_is_mcps_of_the_same_name() {
        for (i, level) in LogLevel::ALL.into_iter().enumerate() {
            assert_eq!(LEVELS[i].0, level);
            let mcp = to_mcp_level(level);
            assert_eq!(serde_json::to_value(mcp).unwrap(), level.as_str());
            assert_eq!(from_mcp_level(mcp), level);
            assert_eq!(from_index(level as u8), level);
        }
        assert_eq!(from_index(200), LogLevel::Debug);
    }
}
