//! The `warlog` command: reads the command line, starts the runtime and runs the library's
//! `warlog::run`, turning its error into words and an exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = warlog::cli::Cli::parse();
    let log_format = cli.log_format;
    warlog::init_tracing(log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("warlog: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(warlog::run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(warlog::CliError::Exit(code)) => ExitCode::from(code),
        Err(error) => {
            // A log collector gets the error as a record; a person reads it once, in words.
            if log_format == warlog::cli::LogFormat::Json {
                tracing::error!("{error}");
            } else {
                eprintln!("warlog: {error}");
            }
            ExitCode::FAILURE
        }
    }
}
