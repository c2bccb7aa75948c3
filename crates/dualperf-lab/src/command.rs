//! The kernel commands a testbed is made of, and the runner that executes
//! (or only prints) them.
//!
//! Kernel state goes through `ip`, `tc` and `nft` with explicit argument
//! vectors, never through a shell, so no node name or address can be
//! misread as shell syntax. Each command can be printed in a form a user can
//! paste into a root shell (`--dry-run`), and is echoed to stderr before it
//! runs when the runner is verbose.

use std::fmt;
use std::process::{Command, Output, Stdio};

use crate::error::LabError;

/// One program invocation: the program and its argument vector.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct KernelCommand {
    program: String,
    args: Vec<String>,
}

impl KernelCommand {
    /// `program` with `args`.
    pub fn new<I, S>(program: &str, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        KernelCommand {
            program: program.to_string(),
            args: args.into_iter().map(Into::into).collect(),
        }
    }

    /// `ip ARGS…`.
    pub fn ip<I: IntoIterator<Item = S>, S: Into<String>>(args: I) -> Self {
        Self::new("ip", args)
    }

    /// `tc ARGS…`.
    pub fn tc<I: IntoIterator<Item = S>, S: Into<String>>(args: I) -> Self {
        Self::new("tc", args)
    }

    /// `ip netns exec NETNS PROGRAM ARGS…`: runs `program` inside a namespace.
    pub fn in_netns<I: IntoIterator<Item = S>, S: Into<String>>(
        netns: &str,
        program: &str,
        args: I,
    ) -> Self {
        let mut all = vec![
            "netns".to_string(),
            "exec".into(),
            netns.into(),
            program.into(),
        ];
        all.extend(args.into_iter().map(Into::into));
        Self::new("ip", all)
    }

    /// The program name.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// The arguments.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    fn to_process(&self) -> Command {
        let mut command = Command::new(&self.program);
        command.args(&self.args);
        command
    }
}

use crate::shell::quote as shell_quote;

impl fmt::Display for KernelCommand {
    /// The command as a user would type it in a shell, quoted where needed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&shell_quote(&self.program))?;
        for arg in &self.args {
            write!(f, " {}", shell_quote(arg))?;
        }
        Ok(())
    }
}

/// Executes kernel commands, echoing each to stderr (prefixed `+ `) when verbose.
#[derive(Clone, Copy, Debug, Default)]
pub struct Runner {
    verbose: bool,
}

impl Runner {
    /// A runner; `verbose` echoes every command before it runs.
    pub fn new(verbose: bool) -> Self {
        Runner { verbose }
    }

    /// True when commands are echoed.
    pub fn is_verbose(&self) -> bool {
        self.verbose
    }

    /// Runs `command` to completion and returns its output.
    ///
    /// # Errors
    /// [`LabError::Spawn`] if it cannot start, [`LabError::Command`] with its
    /// stderr if it exits unsuccessfully.
    pub fn run(&self, command: &KernelCommand) -> Result<Output, LabError> {
        let output = self.output(command)?;
        if output.status.success() {
            Ok(output)
        } else {
            Err(LabError::Command {
                command: command.to_string(),
                status: output.status.to_string(),
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
            })
        }
    }

    /// Runs `command` to completion and returns its output whatever the exit
    /// status (for probes, where failure is an answer).
    ///
    /// # Errors
    /// [`LabError::Spawn`] if it cannot start.
    pub fn output(&self, command: &KernelCommand) -> Result<Output, LabError> {
        if self.verbose {
            eprintln!("+ {command}");
        }
        command
            .to_process()
            .stdin(Stdio::null())
            .output()
            .map_err(|source| LabError::Spawn {
                command: command.to_string(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_print_unquoted() {
        let command = KernelCommand::ip([
            "-n",
            "dsp-a1-client",
            "addr",
            "add",
            "10.180.1.1/24",
            "dev",
            "dspa1-0a",
        ]);
        assert_eq!(
            command.to_string(),
            "ip -n dsp-a1-client addr add 10.180.1.1/24 dev dspa1-0a"
        );
    }

    #[test]
    fn words_with_shell_syntax_are_single_quoted() {
        let command = KernelCommand::new("echo", ["a b", "it's", "$HOME", ""]);
        assert_eq!(command.to_string(), r#"echo 'a b' 'it'\''s' '$HOME' ''"#);
    }

    #[test]
    fn a_failing_command_reports_its_command_line_and_stderr() {
        let runner = Runner::new(false);
        let err = runner
            .run(&KernelCommand::new("sh", ["-c", "echo broken >&2; exit 3"]))
            .unwrap_err();
        let text = err.to_string();
        assert!(text.contains("sh -c 'echo broken >&2; exit 3'"), "{text}");
        assert!(text.ends_with("broken"), "{text}");
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let err = Runner::new(false)
            .run(&KernelCommand::new("/nonexistent/dualperf-ip", ["x"]))
            .unwrap_err();
        assert!(matches!(err, LabError::Spawn { .. }), "{err}");
    }
}
