//! The x3dbake command line: a thin binary over the library (see `cli`).

#![forbid(unsafe_code)]

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
