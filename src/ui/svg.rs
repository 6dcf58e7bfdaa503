//! SVG markup for the parts of the stage that only draw: boxes, labels,
//! links, chips and countdown bars. They are written as one string a part
//! and handed to Yew as raw markup, because each element written with
//! `html!` compiles to its own construction code: the stage's pictures
//! drawn element by element cost the page about 15 KiB gzipped. What a
//! learner clicks (nodes, tokens, messages) stays in `html!`, with its
//! handlers and its identity, so tokens still glide from stage to stage.

use std::fmt::Write;
use yew::{AttrValue, Html};

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
        let _ = write!(self.0, r#"<rect class="{class}" x="{x:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" rx="{rx:.1}"/>"#, w.max(0.0), h.max(0.0));
        self
    }

    pub fn circle(&mut self, class: &str, cx: f64, cy: f64, r: f64) -> &mut Self {
        let _ = write!(self.0, r#"<circle class="{class}" cx="{cx:.1}" cy="{cy:.1}" r="{r:.1}"/>"#);
        self
    }

    pub fn line(&mut self, class: &str, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> &mut Self {
        let _ = write!(self.0, r#"<line class="{class}" x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}"/>"#);
        self
    }

    /// A text at (x, y); `anchor` is "start", "middle" or "end".
    pub fn text(&mut self, class: &str, x: f64, y: f64, anchor: &str, content: &str) -> &mut Self {
        let _ = write!(self.0, r#"<text class="{class}" x="{x:.1}" y="{y:.1}" text-anchor="{anchor}">{}</text>"#, esc(content));
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
}
