//! The x3dbake command line: a thin binary over the library (see `cli`).

#![deny(unsafe_code)]

mod cli;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod cxx;

fn main() -> std::process::ExitCode {
    cli::main()
}
