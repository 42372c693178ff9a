//! The regular expressions of shelltestrunner's `/.../` expectations:
//! POSIX extended syntax as `Text.Regex.TDFA` reads it with its default
//! options (a match anywhere in the text; `.` and `[^...]` do not match a
//! newline; `^` and `$` also match at line boundaries).
//!
//! Supported: literals, `\c` (the character `c` itself), `.`, bracket
//! expressions with ranges, negation and `[:class:]` names, `^`, `$`,
//! groups, alternation (empty branches included), `*`, `+`, `?` and
//! `{m}`, `{m,}`, `{m,n}`. Matching is a Pike VM over the compiled
//! program: time linear in the text for a given pattern, no recursion on
//! the text, so `(.|\n)*` over a long output is cheap.

/// A compiled pattern.
#[derive(Clone, Debug)]
pub struct Regex {
    prog: Vec<Inst>,
    classes: Vec<Class>,
}

#[derive(Clone, Debug)]
struct Class {
    negated: bool,
    ranges: Vec<(char, char)>,
}

impl Class {
    fn matches(&self, c: char) -> bool {
        let inside = self.ranges.iter().any(|&(a, b)| a <= c && c <= b);
        if self.negated {
            !inside && c != '\n'
        } else {
            inside
        }
    }
}

#[derive(Clone, Debug)]
enum Node {
    Char(char),
    Any,
    Class(usize),
    Bol,
    Eol,
    Concat(Vec<Node>),
    Alt(Vec<Node>),
    Repeat(Box<Node>, u32, Option<u32>),
}

#[derive(Clone, Copy, Debug)]
enum Inst {
    Char(char),
    Any,
    Class(usize),
    Bol,
    Eol,
    Split(usize, usize),
    Jmp(usize),
    Match,
}

/// Largest repetition count accepted in `{m,n}` (the program grows with it).
const MAX_REPEAT: u32 = 1000;

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    classes: &'a mut Vec<Class>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn alternation(&mut self) -> Result<Node, String> {
        let mut branches = vec![self.concatenation()?];
        while self.peek() == Some('|') {
            self.pos += 1;
            branches.push(self.concatenation()?);
        }
        Ok(if branches.len() == 1 {
            branches.pop().unwrap_or(Node::Concat(Vec::new()))
        } else {
            Node::Alt(branches)
        })
    }

    fn concatenation(&mut self) -> Result<Node, String> {
        let mut items = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            let atom = self.atom()?;
            items.push(self.repetitions(atom)?);
        }
        Ok(Node::Concat(items))
    }

    fn repetitions(&mut self, mut atom: Node) -> Result<Node, String> {
        loop {
            let (min, max) = match self.peek() {
                Some('*') => (0, None),
                Some('+') => (1, None),
                Some('?') => (0, Some(1)),
                Some('{') => match self.bounds() {
                    Some(b) => b,
                    None => return Ok(atom),
                },
                _ => return Ok(atom),
            };
            // Past the operator (or the closing brace).
            self.pos += 1;
            if matches!(atom, Node::Bol | Node::Eol) {
                return Err("a repetition of an anchor".to_owned());
            }
            atom = Node::Repeat(Box::new(atom), min, max);
        }
    }

    /// Reads `{m}`, `{m,}` or `{m,n}` at the cursor, leaving it on the `}`;
    /// `None` (cursor unchanged) when the brace does not start one, in
    /// which case it is a literal.
    fn bounds(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.pos;
        let mut i = start + 1;
        let number = |i: &mut usize, chars: &[char]| -> Option<u32> {
            let from = *i;
            while chars.get(*i).is_some_and(char::is_ascii_digit) {
                *i += 1;
            }
            let s: String = chars[from..*i].iter().collect();
            s.parse().ok().filter(|&n| n <= MAX_REPEAT)
        };
        let min = number(&mut i, &self.chars)?;
        let max = match self.chars.get(i) {
            Some('}') => Some(min),
            Some(',') => {
                i += 1;
                if self.chars.get(i) == Some(&'}') {
                    None
                } else {
                    let m = number(&mut i, &self.chars)?;
                    if m < min {
                        return None;
                    }
                    Some(m)
                }
            }
            _ => return None,
        };
        if self.chars.get(i) != Some(&'}') {
            return None;
        }
        self.pos = i;
        Some((min, max))
    }

    fn atom(&mut self) -> Result<Node, String> {
        let c = self.peek().ok_or("unexpected end of pattern")?;
        self.pos += 1;
        Ok(match c {
            '(' => {
                let inner = self.alternation()?;
                if self.peek() != Some(')') {
                    return Err("missing ')'".to_owned());
                }
                self.pos += 1;
                inner
            }
            '[' => self.bracket()?,
            '.' => Node::Any,
            '^' => Node::Bol,
            '$' => Node::Eol,
            '\\' => {
                let e = self.peek().ok_or("a trailing backslash")?;
                self.pos += 1;
                Node::Char(e)
            }
            '*' | '+' | '?' => return Err(format!("nothing to repeat before '{c}'")),
            other => Node::Char(other),
        })
    }

    fn bracket(&mut self) -> Result<Node, String> {
        let mut class = Class {
            negated: false,
            ranges: Vec::new(),
        };
        if self.peek() == Some('^') {
            class.negated = true;
            self.pos += 1;
        }
        let mut first = true;
        loop {
            let c = self.peek().ok_or("missing ']'")?;
            self.pos += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            if c == '[' && self.peek() == Some(':') {
                let rest: String = self.chars[self.pos..].iter().collect();
                let end = rest.find(":]").ok_or("unterminated [: :] class")?;
                let name = &rest[1..end];
                self.pos += end + 2;
                class.ranges.extend(named_class(name)?);
                continue;
            }
            if self.peek() == Some('-') && self.chars.get(self.pos + 1).is_some_and(|&n| n != ']') {
                let hi = self.chars[self.pos + 1];
                self.pos += 2;
                if hi < c {
                    return Err(format!("invalid range {c}-{hi}"));
                }
                class.ranges.push((c, hi));
            } else {
                class.ranges.push((c, c));
            }
        }
        self.classes.push(class);
        Ok(Node::Class(self.classes.len() - 1))
    }
}

fn named_class(name: &str) -> Result<Vec<(char, char)>, String> {
    Ok(match name {
        "digit" => vec![('0', '9')],
        "alpha" => vec![('a', 'z'), ('A', 'Z')],
        "alnum" => vec![('a', 'z'), ('A', 'Z'), ('0', '9')],
        "upper" => vec![('A', 'Z')],
        "lower" => vec![('a', 'z')],
        "space" => vec![(' ', ' '), ('\t', '\r')],
        "blank" => vec![(' ', ' '), ('\t', '\t')],
        "punct" => vec![('!', '/'), (':', '@'), ('[', '`'), ('{', '~')],
        "xdigit" => vec![('0', '9'), ('a', 'f'), ('A', 'F')],
        other => return Err(format!("unknown class [:{other}:]")),
    })
}

fn compile(node: &Node, prog: &mut Vec<Inst>) {
    match node {
        Node::Char(c) => prog.push(Inst::Char(*c)),
        Node::Any => prog.push(Inst::Any),
        Node::Class(i) => prog.push(Inst::Class(*i)),
        Node::Bol => prog.push(Inst::Bol),
        Node::Eol => prog.push(Inst::Eol),
        Node::Concat(items) => {
            for n in items {
                compile(n, prog);
            }
        }
        Node::Alt(branches) => {
            let mut jumps = Vec::new();
            for (k, b) in branches.iter().enumerate() {
                if k + 1 < branches.len() {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    compile(b, prog);
                    jumps.push(prog.len());
                    prog.push(Inst::Jmp(0));
                    let next = prog.len();
                    prog[split] = Inst::Split(split + 1, next);
                } else {
                    compile(b, prog);
                }
            }
            let end = prog.len();
            for j in jumps {
                prog[j] = Inst::Jmp(end);
            }
        }
        Node::Repeat(inner, min, max) => {
            for _ in 0..*min {
                compile(inner, prog);
            }
            match max {
                None => {
                    let split = prog.len();
                    prog.push(Inst::Split(split + 1, 0));
                    compile(inner, prog);
                    prog.push(Inst::Jmp(split));
                    let end = prog.len();
                    prog[split] = Inst::Split(split + 1, end);
                }
                Some(max) => {
                    let mut splits = Vec::new();
                    for _ in *min..*max {
                        splits.push(prog.len());
                        prog.push(Inst::Split(0, 0));
                        compile(inner, prog);
                    }
                    let end = prog.len();
                    for s in splits {
                        prog[s] = Inst::Split(s + 1, end);
                    }
                }
            }
        }
    }
}

impl Regex {
    /// Compiles a pattern.
    ///
    /// # Errors
    ///
    /// What is wrong with the pattern.
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let mut classes = Vec::new();
        let mut p = Parser {
            chars: pattern.chars().collect(),
            pos: 0,
            classes: &mut classes,
        };
        let node = p.alternation()?;
        if p.pos != p.chars.len() {
            return Err(format!(
                "unmatched ')' at character {} of /{pattern}/",
                p.pos + 1
            ));
        }
        let mut prog = Vec::new();
        compile(&node, &mut prog);
        prog.push(Inst::Match);
        Ok(Regex { prog, classes })
    }

    /// Whether the pattern matches somewhere in `text`.
    pub fn is_match(&self, text: &str) -> bool {
        let chars: Vec<char> = text.chars().collect();
        let n = self.prog.len();
        let mut current: Vec<usize> = Vec::new();
        let mut next: Vec<usize> = Vec::new();
        // The step at which each instruction was last added (closure marks).
        let mut mark = vec![usize::MAX; n];
        let mut stack: Vec<usize> = Vec::new();
        for pos in 0..=chars.len() {
            let prev = if pos == 0 { None } else { Some(chars[pos - 1]) };
            let here = chars.get(pos).copied();
            // A new attempt starts at every position (unanchored search).
            let mut seeds = std::mem::take(&mut current);
            seeds.push(0);
            for &pc in &seeds {
                stack.push(pc);
                while let Some(pc) = stack.pop() {
                    if mark[pc] == pos {
                        continue;
                    }
                    mark[pc] = pos;
                    match self.prog[pc] {
                        Inst::Match => return true,
                        Inst::Jmp(t) => stack.push(t),
                        Inst::Split(a, b) => {
                            stack.push(b);
                            stack.push(a);
                        }
                        Inst::Bol => {
                            if prev.is_none() || prev == Some('\n') {
                                stack.push(pc + 1);
                            }
                        }
                        Inst::Eol => {
                            if here.is_none() || here == Some('\n') {
                                stack.push(pc + 1);
                            }
                        }
                        Inst::Char(_) | Inst::Any | Inst::Class(_) => current.push(pc),
                    }
                }
            }
            let Some(c) = here else { break };
            next.clear();
            for &pc in &current {
                let ok = match self.prog[pc] {
                    Inst::Char(x) => x == c,
                    Inst::Any => c != '\n',
                    Inst::Class(i) => self.classes[i].matches(c),
                    _ => false,
                };
                if ok {
                    next.push(pc + 1);
                }
            }
            std::mem::swap(&mut current, &mut next);
        }
        false
    }
}
