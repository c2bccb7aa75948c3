//! The character budget of `report --format md`: a pull-request or issue
//! comment on GitHub holds 65,536 characters, so a report of any run must
//! fit in [`MAX_MARKDOWN_CHARS`]. The summary always goes in; tables that
//! would not fit are cut at a row boundary, with a line that says how many
//! rows were left out and where every row is (the HTML report, the CSV).

/// The most characters (Unicode scalar values) a Markdown report has: a
/// GitHub comment's 65,536 less headroom for a line the user adds.
pub const MAX_MARKDOWN_CHARS: usize = 60_000;

/// Characters of `text` as GitHub counts them.
pub(crate) fn chars(text: &str) -> usize {
    text.chars().count()
}

/// `open`, then as many of `rows` as fit in `budget` characters with
/// `close` after them, then `close`. When rows are left out, a line
/// `pointer(left_out)` goes after the last row that fits (and its length
/// counts against the budget). `None` when not even `open`, the pointer and
/// `close` fit.
pub(crate) fn fit_rows(
    open: &str,
    rows: &[String],
    close: &str,
    budget: usize,
    pointer: impl Fn(usize) -> String,
) -> Option<String> {
    let whole = chars(open) + rows.iter().map(|r| chars(r)).sum::<usize>() + chars(close);
    if whole <= budget {
        let mut out = String::from(open);
        rows.iter().for_each(|row| out.push_str(row));
        out.push_str(close);
        return Some(out);
    }
    // Reserve the longest pointer (every row left out) before filling.
    let reserve = chars(open) + chars(&pointer(rows.len())) + chars(close);
    let mut room = budget.checked_sub(reserve)?;
    let mut out = String::from(open);
    let mut kept = 0;
    for row in rows {
        let length = chars(row);
        if length > room {
            break;
        }
        room -= length;
        out.push_str(row);
        kept += 1;
    }
    out.push_str(&pointer(rows.len() - kept));
    out.push_str(close);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("| row {i:04} |\n")).collect()
    }

    fn pointer(n: usize) -> String {
        format!("\n{n} more rows in the HTML report.\n")
    }

    #[test]
    fn what_fits_goes_in_whole() {
        let out = fit_rows("open\n", &rows(3), "close\n", 1_000, pointer).unwrap();
        assert_eq!(
            out,
            "open\n| row 0000 |\n| row 0001 |\n| row 0002 |\nclose\n"
        );
    }

    #[test]
    fn a_cut_stays_within_the_budget_and_says_how_many_rows_are_out() {
        let all = rows(1_000);
        let out = fit_rows("open\n", &all, "close\n", 500, pointer).unwrap();
        assert!(chars(&out) <= 500, "{} characters", chars(&out));
        let kept = out.lines().filter(|l| l.starts_with("| row")).count();
        assert!(kept > 10, "{out}");
        assert!(
            out.contains(&format!(
                "\n{} more rows in the HTML report.\n",
                1_000 - kept
            )),
            "{out}"
        );
        assert!(out.ends_with("close\n"));
    }

    #[test]
    fn nothing_fits_in_too_small_a_budget() {
        assert_eq!(fit_rows("open\n", &rows(5), "close\n", 10, pointer), None);
    }
}
