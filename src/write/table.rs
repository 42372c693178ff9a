//! Ganeti's text tables (`Utils.printTable`): every column as wide as its
//! widest cell (counted in characters), numeric columns right-aligned and
//! the others left-aligned, each line a space, then the cells joined by
//! single spaces. The node table of `-p`, hbal's instance map and its
//! statistics are printed with it.

/// The table for `header` and `rows`; `numeric` says which columns are
/// right-aligned. Each line ends with a newline; non-numeric last columns
/// are padded, so a line may end in spaces, as in Ganeti.
pub fn print_table(
    prefix: &str,
    header: &[String],
    rows: &[Vec<String>],
    numeric: &[bool],
) -> String {
    let columns = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(header).chain(rows.iter().map(Vec::as_slice)) {
        out.push_str(prefix);
        out.push(' ');
        for (i, cell) in row.iter().enumerate().take(columns) {
            if i > 0 {
                out.push(' ');
            }
            let pad = widths[i].saturating_sub(cell.chars().count());
            if numeric.get(i).copied().unwrap_or(false) {
                out.extend(std::iter::repeat_n(' ', pad));
                out.push_str(cell);
            } else {
                out.push_str(cell);
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn columns_align_as_ganeti_aligns_them() {
        let header = strings(&["F", "Name", "t_mem"]);
        let rows = vec![
            strings(&[" ", "node1", "16384"]),
            strings(&["-", "n2", "0"]),
        ];
        assert_eq!(
            print_table("", &header, &rows, &[false, false, true]),
            " F Name  t_mem\n   node1 16384\n - n2        0\n"
        );
        assert_eq!(
            print_table("", &header, &[], &[false, false, true]),
            " F Name t_mem\n"
        );
    }
}
