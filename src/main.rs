//! The `mcpwire` command-line tool: `check` and `stats` over MCP traffic (DESIGN.md, "CLI
//! contract"). Usage: `mcpwire check [--transport stdio|sse|http-body]
//! [--profile 2026-07-28|legacy|auto] [--format human|jsonl] FILE...|-`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
