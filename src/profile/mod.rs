//! MCP profile rules per protocol revision (DESIGN.md layer 4).
