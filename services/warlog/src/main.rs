use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = warlog::cli::Cli::parse();
    warlog::init_tracing(cli.log_format);
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
            tracing::error!("{error}");
            eprintln!("warlog: {error}");
            ExitCode::FAILURE
        }
    }
}
