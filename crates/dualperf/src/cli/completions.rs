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
/// Examples:
///   dualperf man > /usr/local/share/man/man1/dualperf.1
///   dualperf man --dir /usr/local/share/man/man1   # dualperf.1, dualperf-run.1, dualperf-lab-up.1 …
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub(crate) struct ManArgs {
    /// Write one page per command and subcommand into DIR (dualperf.1,
    /// dualperf-run.1 …) instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

/// Prints the completion script for `args.shell`.
pub(crate) fn completions(args: CompletionArgs) -> anyhow::Result<ExitCode> {
    let mut command = super::Cli::command();
    clap_complete::generate(args.shell, &mut command, "dualperf", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

/// Prints the manual page (roff), or writes every page into `--dir`.
pub(crate) fn man(args: ManArgs) -> anyhow::Result<ExitCode> {
    if let Some(dir) = args.dir {
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        clap_mangen::generate_to(super::Cli::command(), &dir)
            .with_context(|| format!("writing the manual pages into {}", dir.display()))?;
        return Ok(ExitCode::SUCCESS);
    }
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

    #[test]
    fn every_subcommand_gets_a_page_of_its_own() {
        let dir = std::env::temp_dir().join(format!("dualperf-man-{}", std::process::id()));
        man(ManArgs {
            dir: Some(dir.clone()),
        })
        .unwrap();
        let page = std::fs::read_to_string(dir.join("dualperf-run.1")).unwrap();
        assert!(page.contains("peer"), "{page:.300}");
        assert!(dir.join("dualperf.1").exists());
        assert!(dir.join("dualperf-lab.1").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
