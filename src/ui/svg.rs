//! SVG markup for the parts of the stage that only draw: boxes, labels,
//! links, chips and countdown bars. They are written as one string a part
//! and handed to Yew as raw markup, because each element written with
//! `html!` compiles to its own construction code: the stage's pictures
//! drawn element by element cost the page about 15 KiB gzipped. What a
//! learner clicks (nodes, tokens, messages) stays in `html!`, with its
//! handlers and its identity, so tokens still glide from stage to stage.

use std::fmt::Write;
use yew::{AttrValue, Html};

/// A coordinate written with one decimal, as the one-decimal float format
/// would write it, by integer arithmetic: the page's only float formatting
/// would otherwise link core's `f64` Display (about 10 KB before gzip) for
/// pictures that need a tenth of a pixel at most. NaN and infinities write 0.
#[derive(Clone, Copy, Debug)]
pub struct Num(pub f64);

impl std::fmt::Display for Num {
    fn fmt(&self, out: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tenths = if self.0.is_finite() { (self.0 * 10.0).round() as i64 } else { 0 };
        let sign = if tenths < 0 { "-" } else { "" };
        let t = tenths.unsigned_abs();
        write!(out, "{sign}{}.{}", t / 10, t % 10)
    }
}

/// Markup being written.
#[derive(Default)]
pub struct Svg(String);

/// Escapes text for markup: names come from the learner (topic names).
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

impl Svg {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn rect(&mut self, class: &str, x: f64, y: f64, w: f64, h: f64, rx: f64) -> &mut Self {
        let _ = write!(self.0, r#"<rect class="{class}" x="{}" y="{}" width="{}" height="{}" rx="{}"/>"#, Num(x), Num(y), Num(w.max(0.0)), Num(h.max(0.0)), Num(rx));
        self
    }

    pub fn circle(&mut self, class: &str, cx: f64, cy: f64, r: f64) -> &mut Self {
        let _ = write!(self.0, r#"<circle class="{class}" cx="{}" cy="{}" r="{}"/>"#, Num(cx), Num(cy), Num(r));
        self
    }

    pub fn line(&mut self, class: &str, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> &mut Self {
        let _ = write!(self.0, r#"<line class="{class}" x1="{}" y1="{}" x2="{}" y2="{}"/>"#, Num(x1), Num(y1), Num(x2), Num(y2));
        self
    }

    /// A text at (x, y); `anchor` is "start", "middle" or "end".
    pub fn text(&mut self, class: &str, x: f64, y: f64, anchor: &str, content: &str) -> &mut Self {
        let _ = write!(self.0, r#"<text class="{class}" x="{}" y="{}" text-anchor="{anchor}">{}</text>"#, Num(x), Num(y), esc(content));
        self
    }

    pub fn title(&mut self, content: &str) -> &mut Self {
        let _ = write!(self.0, "<title>{}</title>", esc(content));
        self
    }

    /// Opens a group; close it with [`Svg::close`].
    pub fn group(&mut self, class: &str) -> &mut Self {
        let _ = write!(self.0, r#"<g class="{class}">"#);
        self
    }

    pub fn close(&mut self) -> &mut Self {
        self.0.push_str("</g>");
        self
    }

    /// Any other markup, as it is.
    pub fn raw(&mut self, markup: &str) -> &mut Self {
        self.0.push_str(markup);
        self
    }

    pub fn into_html(self) -> Html {
        Html::from_html_unchecked(AttrValue::from(self.0))
    }

    #[cfg(test)]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_well_formed_and_escapes_what_a_learner_typed() {
        let mut s = Svg::new();
        s.group("chip").rect("body", 1.0, 2.04, 10.0, -1.0, 4.0).text("name", 5.0, 6.0, "middle", "a<b & \"c\"").close();
        assert_eq!(
            s.as_str(),
            r#"<g class="chip"><rect class="body" x="1.0" y="2.0" width="10.0" height="0.0" rx="4.0"/><text class="name" x="5.0" y="6.0" text-anchor="middle">a&lt;b &amp; &quot;c&quot;</text></g>"#
        );
    }

    #[test]
    fn numbers_are_written_as_the_one_decimal_float_format_writes_them() {
        for x in [0.0, 0.04, 0.05, 0.96, 1.0, 2.25, 12.345, 399.99, -0.04, -0.06, -3.5, -12.34, 1280.0, 0.15, 7.45] {
            let ours = Num(x).to_string();
            let theirs = format!("{x:.1}");
            // The float format rounds ties to even on the binary value; a
            // tie is written either way, and never differs by more than a tenth.
            let (a, b): (f64, f64) = (ours.parse().unwrap(), theirs.parse().unwrap());
            assert!((a - b).abs() < 0.11, "{x}: {ours} against {theirs}");
            if (x * 10.0 - (x * 10.0).trunc()).abs() != 0.5 {
                assert_eq!(ours.trim_start_matches('-'), theirs.trim_start_matches('-'), "{x}");
            }
        }
        assert_eq!(Num(-0.04).to_string(), "0.0");
        assert_eq!(Num(-3.46).to_string(), "-3.5");
        assert_eq!(Num(f64::NAN).to_string(), "0.0");
        assert_eq!(Num(f64::INFINITY).to_string(), "0.0");
    }
}
