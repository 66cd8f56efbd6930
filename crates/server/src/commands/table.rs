//! The tables of the list commands (`equip org list`, `equip key list`): a
//! header and rows on standard output, columns padded to their widest cell
//! and separated by two spaces, so that both a person and `awk`/`cut`-style
//! tools read them; `--json` gives the same rows as one JSON array.

use std::fmt::Write as _;
use std::io::Write as _;

use anyhow::Context;
use chrono::{DateTime, Utc};

/// A time as the list commands show it: UTC, to the second.
pub fn time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// A time as the JSON of the list commands carries it (milliseconds, as the
/// API's).
pub fn json_time(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// `header` and `rows` as aligned text (the last column unpadded).
#[must_use]
pub fn render(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    for row in std::iter::once(&header).chain(rows) {
        let last = row.len().saturating_sub(1);
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i == last {
                line.push_str(cell);
            } else {
                let pad = widths[i].saturating_sub(cell.chars().count());
                let _ = write!(line, "{cell}{:pad$}  ", "");
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Writes `text` to standard output.
///
/// # Errors
/// Standard output cannot be written (a closed pipe).
pub fn print(text: &str) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")
}

/// `value` as pretty JSON and a newline on standard output.
///
/// # Errors
/// Standard output cannot be written.
pub fn print_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    let mut text = serde_json::to_string_pretty(value).context("cannot encode the list")?;
    text.push('\n');
    print(&text)
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn columns_are_padded_to_their_widest_cell() {
        let rows = vec![
            vec!["a".to_owned(), "long value".to_owned(), "x".to_owned()],
            vec!["bbbb".to_owned(), "v".to_owned(), String::new()],
        ];
        assert_eq!(
            render(&["ID", "NAME", "LAST"], &rows),
            "ID    NAME        LAST\na     long value  x\nbbbb  v\n"
        );
        assert_eq!(render(&["ID", "NAME"], &[]), "ID  NAME\n");
    }
}
