//! The `mcpwire` command-line tool: `check`, `stats` (and later `proxy`).

fn main() {
    eprintln!("mcpwire: not built yet");
    std::process::exit(2);
}
