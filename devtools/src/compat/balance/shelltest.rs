//! shelltestrunner's test format (format 1), as Ganeti's
//! `test/hs/shelltests/*.test` use it, and checking a run against it.
//!
//! A test is one command line, then optionally `<<<` and standard input,
//! then expectations: `>>>` standard output, `>>>2` standard error, each
//! either a literal text on the following lines (up to the next `>>>`
//! line; nothing at all means "empty") or a regular expression on the
//! marker's line, `/re/` (it may run over several lines until a line that
//! ends with `/`) or `!/re/` (must not match), and last `>>>= N` or
//! `>>>= !N`, the exit status, which ends the test. Blank lines and lines
//! starting with `#` between tests are comments. An expectation that is
//! not given is not checked; a missing exit status means 0.

use super::posix::Pattern;

/// What a test expects of one output stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exactly these bytes (the literal lines, each ending in a newline;
    /// empty for no lines).
    Literal(String),
    /// A match of the pattern somewhere (or, when `negated`, none).
    Regex { pattern: String, negated: bool },
}

/// The exit status a test expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitExpect {
    /// Exactly this status.
    Is(i32),
    /// Any status but this one.
    Not(i32),
}

/// One test of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellTest {
    /// The line of the command in its file (1-based).
    pub line: usize,
    /// The command, a shell command line.
    pub command: String,
    /// Standard input, if given.
    pub stdin: Option<String>,
    /// Expected standard output.
    pub stdout: Option<Expect>,
    /// Expected standard error.
    pub stderr: Option<Expect>,
    /// Expected exit status.
    pub exit: ExitExpect,
}

/// Which block the parser is reading.
enum Block {
    Stdin,
    Out,
    Err,
}

/// Parses a test file.
///
/// # Errors
///
/// The line and what is wrong there (an unterminated regular expression,
/// a bad exit status, an expectation without a command).
pub fn parse(text: &str) -> Result<Vec<ShellTest>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut tests = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        if l.trim().is_empty() || l.starts_with('#') {
            i += 1;
            continue;
        }
        if l.starts_with(">>>") || l.starts_with("<<<") {
            return Err(format!("line {}: an expectation without a command", i + 1));
        }
        let mut test = ShellTest {
            line: i + 1,
            command: l.to_owned(),
            stdin: None,
            stdout: None,
            stderr: None,
            exit: ExitExpect::Is(0),
        };
        i += 1;
        // The literal block being read, if any.
        let mut block: Option<(Block, Vec<&str>)> = None;
        let finish = |test: &mut ShellTest, block: Option<(Block, Vec<&str>)>| {
            if let Some((which, body)) = block {
                let mut text = String::new();
                for b in body {
                    text.push_str(b);
                    text.push('\n');
                }
                match which {
                    Block::Stdin => test.stdin = Some(text),
                    Block::Out => test.stdout = Some(Expect::Literal(text)),
                    Block::Err => test.stderr = Some(Expect::Literal(text)),
                }
            }
        };
        while i < lines.len() {
            let l = lines[i];
            if let Some(rest) = l.strip_prefix("<<<") {
                finish(&mut test, block.take());
                block = Some((Block::Stdin, inline(rest)));
                i += 1;
                continue;
            }
            let Some(marker) = l.strip_prefix(">>>") else {
                match block.as_mut() {
                    Some((_, body)) => {
                        body.push(l);
                        i += 1;
                        continue;
                    }
                    // A new command: the previous test had no exit status.
                    None => break,
                }
            };
            finish(&mut test, block.take());
            if let Some(status) = marker.strip_prefix('=') {
                test.exit = parse_exit(status.trim())
                    .ok_or_else(|| format!("line {}: bad exit status '{}'", i + 1, status))?;
                i += 1;
                break;
            }
            let (which, rest) = match marker.strip_prefix('2') {
                Some(rest) => (Block::Err, rest),
                None => (Block::Out, marker),
            };
            let rest = rest.trim_start();
            let (negated, body) = match rest.strip_prefix('!') {
                Some(b) => (true, b.trim_start()),
                None => (false, rest),
            };
            if let Some(first) = body.strip_prefix('/') {
                // A regular expression, perhaps over several lines.
                let start = i;
                let mut pattern = first.to_owned();
                while !pattern.ends_with('/') || pattern.ends_with("\\/") {
                    i += 1;
                    let Some(more) = lines.get(i) else {
                        return Err(format!(
                            "line {}: regular expression without its closing '/'",
                            start + 1
                        ));
                    };
                    pattern.push('\n');
                    pattern.push_str(more);
                }
                pattern.pop();
                let e = Expect::Regex { pattern, negated };
                match which {
                    Block::Err => test.stderr = Some(e),
                    _ => test.stdout = Some(e),
                }
                i += 1;
            } else {
                if negated {
                    return Err(format!("line {}: '!' needs a /regex/", i + 1));
                }
                block = Some((which, inline(body)));
                i += 1;
            }
        }
        finish(&mut test, block.take());
        tests.push(test);
    }
    Ok(tests)
}

/// The first line of a literal block given on its marker's line.
fn inline(rest: &str) -> Vec<&str> {
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    if rest.is_empty() {
        Vec::new()
    } else {
        vec![rest]
    }
}

fn parse_exit(s: &str) -> Option<ExitExpect> {
    match s.strip_prefix('!') {
        Some(n) => n.trim().parse().ok().map(ExitExpect::Not),
        None => s.parse().ok().map(ExitExpect::Is),
    }
}

impl Expect {
    /// Whether `actual` meets the expectation; the error says why not.
    ///
    /// # Errors
    ///
    /// Why the output does not meet it (or the pattern is invalid).
    pub fn check(&self, actual: &str) -> Result<(), String> {
        match self {
            Expect::Literal(text) => {
                if actual == text {
                    Ok(())
                } else {
                    Err(format!("expected exactly {:?}", text))
                }
            }
            Expect::Regex { pattern, negated } => {
                let re =
                    Pattern::new(pattern).map_err(|e| format!("bad pattern /{pattern}/: {e}"))?;
                match (re.is_match(actual), negated) {
                    (true, false) | (false, true) => Ok(()),
                    (false, false) => Err(format!("no match for /{pattern}/")),
                    (true, true) => Err(format!("a match for !/{pattern}/")),
                }
            }
        }
    }
}

impl ExitExpect {
    /// Whether the status meets the expectation.
    pub fn check(self, status: i32) -> bool {
        match self {
            ExitExpect::Is(n) => status == n,
            ExitExpect::Not(n) => status != n,
        }
    }

    /// The expectation as written in a test file.
    pub fn describe(self) -> String {
        match self {
            ExitExpect::Is(n) => n.to_string(),
            ExitExpect::Not(n) => format!("!{n}"),
        }
    }
}

impl ShellTest {
    /// Checks one run of the test; the list says every expectation it
    /// misses (empty when it passes).
    pub fn check(&self, stdout: &str, stderr: &str, status: i32) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(e) = &self.stdout {
            if let Err(why) = e.check(stdout) {
                out.push(format!("stdout: {why}"));
            }
        }
        if let Some(e) = &self.stderr {
            if let Err(why) = e.check(stderr) {
                out.push(format!("stderr: {why}"));
            }
        }
        if !self.exit.check(status) {
            out.push(format!(
                "exit status {status}, expected {}",
                self.exit.describe()
            ));
        }
        out
    }
}
