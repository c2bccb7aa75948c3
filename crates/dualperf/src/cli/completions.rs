//! `dualperf completions SHELL` and `dualperf man`: shell completion
//! scripts and the manual page, generated from the same clap definitions as
//! `--help`, so they never drift from the real flags. `dev/lab` installs both.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

/// Arguments of `dualperf completions`.
///
/// Examples:
///   dualperf completions bash > /etc/bash_completion.d/dualperf
///   dualperf completions zsh > "${fpath[1]}/_dualperf"
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub(crate) struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Arguments of `dualperf man`.
///
/// Example:
///   dualperf man > /usr/local/share/man/man1/dualperf.1
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub(crate) struct ManArgs {}

/// Prints the completion script for `args.shell`.
pub(crate) fn completions(args: CompletionArgs) -> anyhow::Result<ExitCode> {
    let mut command = super::Cli::command();
    clap_complete::generate(args.shell, &mut command, "dualperf", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// Prints the manual page (roff).
pub(crate) fn man(_: ManArgs) -> anyhow::Result<ExitCode> {
    let mut buffer = Vec::new();
    clap_mangen::Man::new(super::Cli::command())
        .render(&mut buffer)
        .context("rendering the manual page")?;
    std::io::stdout()
        .write_all(&buffer)
        .context("writing the manual page")?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bash_completion_knows_the_subcommands_and_the_man_page_names_the_tool() {
        let mut command = super::super::Cli::command();
        let mut script = Vec::new();
        clap_complete::generate(
            clap_complete::Shell::Bash,
            &mut command,
            "dualperf",
            &mut script,
        );
        let script = String::from_utf8(script).unwrap();
        assert!(
            script.contains("lab") && script.contains("--loopback"),
            "{script:.200}"
        );
        let mut page = Vec::new();
        clap_mangen::Man::new(super::super::Cli::command())
            .render(&mut page)
            .unwrap();
        assert!(String::from_utf8(page).unwrap().contains("dualperf"));
    }
}
