//! The x3dbake command line: a thin binary over the library (see `cli`).

mod cli;
#[cfg(target_os = "linux")]
mod huge_pages;

#[cfg(target_os = "linux")]
#[global_allocator]
static ALLOCATOR: huge_pages::HugePages = huge_pages::HugePages;

fn main() -> std::process::ExitCode {
    cli::main()
}
