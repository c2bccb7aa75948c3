//! The one renderer of every terminal table ([`comfy_table`]): no borders,
//! columns two spaces apart, the header underlined with `─`, the first
//! column left-aligned and the others right-aligned unless told otherwise.
//! Given a width, cells wrap so the table fits it (history's headlines).
//!
//! ```text
//! values (means)          metric    IPv4         IPv6
//! ─────────────────────────────────────────────────────
//! [1] tcp-stream 1024 B   goodput   941 Mbit/s   927 Mbit/s
//! ```

use comfy_table::{
    CellAlignment, ColumnConstraint, ContentArrangement, ContentLineStyle, LineStyle, Table,
    TableStyle, Width,
};

/// Narrowest a wrapping column gets, characters.
const MIN_WRAPPED: u16 = 12;

/// Where a column's text sits.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Align {
    /// Flush left (labels, words).
    Left,
    /// Flush right (numbers).
    Right,
}

/// No borders, a space between columns (each column's right padding adds
/// the second), the header underlined.
const STYLE: TableStyle = TableStyle::new()
    .header_lines(ContentLineStyle::none().junction(' '))
    .content_lines(ContentLineStyle::none().junction(' '))
    .header_separator(LineStyle::none().fill('─').junction('─'));

/// How a table fits a terminal: its width in characters, and which
/// columns may wrap (the others keep every cell on one line: ids, dates,
/// numbers).
#[derive(Clone, Copy, Debug)]
pub struct Fit<'a> {
    /// The terminal's width, characters.
    pub width: usize,
    /// Indices of the columns whose cells may wrap at word boundaries.
    pub wrapping: &'a [usize],
}

/// `rows[0]` is the header, the rest the body. `align[i]` places column
/// `i`; columns beyond `align` are [`Align::Left`] for the first and
/// [`Align::Right`] for the others. With a [`Fit`], the wrapping columns'
/// cells wrap at word boundaries so that no line is longer than the width
/// (where the other columns, the longest words and [`MIN_WRAPPED`] allow
/// it); without, every cell stays on one line.
pub fn render_table(rows: &[Vec<String>], align: &[Align], fit: Option<Fit<'_>>) -> String {
    let Some((header, body)) = rows.split_first() else {
        return String::new();
    };
    let mut table = Table::new();
    table.load_style(STYLE);
    table.set_header(header.clone());
    for row in body {
        table.add_row(row.clone());
    }
    match fit {
        Some(fit) => {
            table.set_content_arrangement(ContentArrangement::Dynamic);
            table.set_width(u16::try_from(fit.width).unwrap_or(u16::MAX));
        }
        None => {
            table.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    let count = table.column_count();
    let last = count.saturating_sub(1);
    for (index, column) in table.column_iter_mut().enumerate() {
        let align = align.get(index).copied().unwrap_or(if index == 0 {
            Align::Left
        } else {
            Align::Right
        });
        column.set_cell_alignment(match align {
            Align::Left => CellAlignment::Left,
            Align::Right => CellAlignment::Right,
        });
        column.set_padding((0, if index == last { 0 } else { 1 }));
        match fit {
            Some(fit) if !fit.wrapping.contains(&index) => {
                column.set_constraint(ColumnConstraint::ContentWidth);
            }
            // A wrapping column never shrinks below MIN_WRAPPED characters:
            // on a narrow terminal the table overflows rather than spelling
            // its words one letter a line.
            Some(_) => {
                column.set_constraint(ColumnConstraint::LowerBoundary(Width::Fixed(MIN_WRAPPED)));
            }
            None => {}
        }
    }
    let mut out = String::new();
    for line in table.lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|c| c.to_string()).collect())
            .collect()
    }

    #[test]
    fn columns_sit_two_apart_under_an_underlined_header() {
        let table = render_table(
            &rows(&[
                &["metric", "IPv4", "IPv6"],
                &["goodput", "941 Mbit/s", "9 Mbit/s"],
            ]),
            &[],
            None,
        );
        assert_eq!(
            table,
            "metric         IPv4      IPv6\n\
             ─────────────────────────────\n\
             goodput  941 Mbit/s  9 Mbit/s\n"
        );
    }

    #[test]
    fn alignment_can_be_chosen_per_column() {
        let table = render_table(
            &rows(&[
                &["id", "n", "headline"],
                &["a", "10", "x"],
                &["bb", "2", "yy"],
            ]),
            &[Align::Left, Align::Right, Align::Left],
            None,
        );
        assert_eq!(
            table,
            "id   n  headline\n────────────────\na   10  x\nbb   2  yy\n"
        );
    }

    #[test]
    fn with_a_width_long_cells_wrap_and_no_line_is_wider() {
        let long =
            "IPv6 941 Mbit/s, IPv4 955 Mbit/s: 1.5 % slower (95 % CI 1.2–1.8 %, significant)";
        let table = render_table(
            &rows(&[&["run", "headline"], &["20261123T041300Z-84215459", long]]),
            &[Align::Left, Align::Left],
            Some(Fit {
                width: 60,
                wrapping: &[1],
            }),
        );
        // The run id does not wrap.
        assert!(table.contains("20261123T041300Z-84215459"), "{table}");
        assert!(table.lines().count() > 3, "{table}");
        for line in table.lines() {
            assert!(line.chars().count() <= 60, "too wide: {line}");
        }
        // Nothing is lost in the wrapping.
        let words: Vec<&str> = table.split_whitespace().collect();
        for word in long.split_whitespace() {
            assert!(words.contains(&word), "{word} missing: {table}");
        }
    }

    #[test]
    fn no_rows_no_table() {
        assert_eq!(render_table(&[], &[], None), "");
    }
}
