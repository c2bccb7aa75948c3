//! Text made safe for HTML and SVG: the one escape every page and chart
//! uses, maud's (the template crate the pages are moving to, whose
//! `html!` templates escape every interpolated value on their own). Every
//! attribute dualperf writes is double-quoted, so `&`, `<`, `>` and `"` are
//! all that need escaping.

use std::fmt::Write;

/// Escapes text for HTML element content and double-quoted attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Writing to a String cannot fail.
    let _ = maud::Escaper::new(&mut out).write_str(text);
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_every_character_that_can_break_out_of_text_or_an_attribute() {
        assert_eq!(
            escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
        assert_eq!(escape("IPv6 via 6in4"), "IPv6 via 6in4");
    }

    #[test]
    fn a_hostile_label_cannot_open_a_tag_or_leave_an_attribute() {
        let label = "\"><script>alert(1)</script>";
        let attribute = format!("<td title=\"{}\">", escape(label));
        assert!(!attribute.contains("<script"), "{attribute}");
        assert_eq!(attribute.matches('"').count(), 2, "{attribute}");
    }
}
