//! The little SVG and HTML the reports need, written by hand: escaping,
//! and a chart canvas of rectangles and text. A charting crate would
//! bring fonts, image codecs and a layout engine for a page of stacked
//! bars; these few functions keep the build lean and the bytes fixed.

use std::fmt::Write;

/// `text` with the five characters HTML and SVG give a meaning escaped.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate or length, to a tenth of a pixel (the same bytes on every
/// machine: a fixed number of decimals, no exponent).
pub fn px(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.1}");
    match s.strip_suffix(".0") {
        Some(whole) if whole != "-0" => whole.to_owned(),
        Some(_) => "0".to_owned(),
        None => s,
    }
}

/// The shape that marks the points of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    Circle,
    Square,
    Triangle,
    Diamond,
}

/// An SVG drawing being built.
pub struct Canvas {
    width: f64,
    height: f64,
    body: String,
    label: String,
}

impl Canvas {
    /// An empty drawing of `width` × `height` pixels; `label` is what a
    /// screen reader says of it.
    pub fn new(width: f64, height: f64, label: &str) -> Canvas {
        Canvas {
            width,
            height,
            body: String::new(),
            label: label.to_owned(),
        }
    }

    /// A rectangle of CSS class `class`, with `title` as its tooltip when
    /// not empty. Rectangles of no height or width are left out.
    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, class: &str, title: &str) {
        if !(w > 0.0 && h > 0.0) {
            return;
        }
        let _ = write!(
            self.body,
            r#"<rect x="{}" y="{}" width="{}" height="{}" class="{class}""#,
            px(x),
            px(y),
            px(w),
            px(h)
        );
        if title.is_empty() {
            self.body.push_str("/>");
        } else {
            let _ = write!(self.body, "><title>{}</title></rect>", escape(title));
        }
    }

    /// A horizontal line of CSS class `class`.
    pub fn hline(&mut self, x1: f64, x2: f64, y: f64, class: &str) {
        let _ = write!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{class}"/>"#,
            px(x1),
            px(y),
            px(x2),
            px(y)
        );
    }

    /// A line through `points` of CSS class `class`.
    pub fn polyline(&mut self, points: &[(f64, f64)], class: &str) {
        if points.is_empty() {
            return;
        }
        let joined: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{},{}", px(x), px(y)))
            .collect();
        let _ = write!(
            self.body,
            r#"<polyline points="{}" class="{class}"/>"#,
            joined.join(" ")
        );
    }

    /// A vertical line of CSS class `class`.
    pub fn vline(&mut self, x: f64, y1: f64, y2: f64, class: &str) {
        let _ = write!(
            self.body,
            r#"<line x1="{}" y1="{}" x2="{}" y2="{}" class="{class}"/>"#,
            px(x),
            px(y1),
            px(x),
            px(y2)
        );
    }

    /// Text anchored at `anchor` (`start`, `middle` or `end`).
    pub fn text(&mut self, x: f64, y: f64, anchor: &str, class: &str, text: &str) {
        let _ = write!(
            self.body,
            r#"<text x="{}" y="{}" text-anchor="{anchor}" class="{class}">{}</text>"#,
            px(x),
            px(y),
            escape(text)
        );
    }

    /// Text read from the bottom up, ending at (`x`, `y`) and running
    /// down from there (a name under a bar); `x` is its baseline.
    pub fn vertical_text(&mut self, x: f64, y: f64, class: &str, text: &str) {
        let _ = write!(
            self.body,
            r#"<text transform="translate({},{}) rotate(-90)" text-anchor="end" class="{class}">{}</text>"#,
            px(x),
            px(y),
            escape(text)
        );
    }

    /// A marker of CSS class `class` centred on (`x`, `y`), about 6
    /// pixels wide.
    pub fn marker(&mut self, shape: Marker, x: f64, y: f64, class: &str) {
        const R: f64 = 3.0;
        let points: &[(f64, f64)] = match shape {
            Marker::Circle => {
                let _ = write!(
                    self.body,
                    r#"<circle cx="{}" cy="{}" r="{}" class="{class}"/>"#,
                    px(x),
                    px(y),
                    px(R)
                );
                return;
            }
            Marker::Square => &[(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)],
            Marker::Triangle => &[(0.0, -1.15), (1.05, 0.8), (-1.05, 0.8)],
            Marker::Diamond => &[(0.0, -1.2), (1.2, 0.0), (0.0, 1.2), (-1.2, 0.0)],
        };
        let joined: Vec<String> = points
            .iter()
            .map(|&(dx, dy)| format!("{},{}", px(x + dx * R), px(y + dy * R)))
            .collect();
        let _ = write!(
            self.body,
            r#"<polygon points="{}" class="{class}"/>"#,
            joined.join(" ")
        );
    }

    /// Opens a group whose tooltip is `title`, for several shapes that
    /// are one thing (a node's bar).
    pub fn open_group(&mut self, title: &str, data: &[(&str, String)]) {
        self.body.push_str("<g");
        for (k, v) in data {
            let _ = write!(self.body, r#" data-{k}="{}""#, escape(v));
        }
        let _ = write!(self.body, "><title>{}</title>", escape(title));
    }

    /// Closes the group [`Canvas::open_group`] opened.
    pub fn close_group(&mut self) {
        self.body.push_str("</g>");
    }

    /// The `<svg>` element of a drawing that only decorates (a legend's
    /// sample): screen readers skip it.
    pub fn finish_decorative(self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" aria-hidden="true">{body}</svg>"#,
            w = px(self.width),
            h = px(self.height),
            body = self.body
        )
    }

    /// The `<svg>` element.
    pub fn finish(self) -> String {
        format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{label}">{body}</svg>"#,
            w = px(self.width),
            h = px(self.height),
            label = escape(&self.label),
            body = self.body
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_rounds() {
        assert_eq!(
            escape(r#"<a & "b">'"#),
            "&lt;a &amp; &quot;b&quot;&gt;&#39;"
        );
        assert_eq!(px(3.0), "3");
        assert_eq!(px(2.25), "2.2");
        assert_eq!(px(-0.01), "0");
        assert_eq!(px(f64::NAN), "0");
        assert_eq!(px(12.96), "13");
    }

    #[test]
    fn empty_shapes_are_left_out() {
        let mut c = Canvas::new(10.0, 5.0, "x");
        c.rect(0.0, 0.0, 0.0, 3.0, "a", "");
        c.rect(0.0, 0.0, 2.0, f64::NAN, "a", "");
        c.rect(1.0, 1.0, 2.0, 3.0, "a", "t<");
        assert_eq!(
            c.finish(),
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="5" viewBox="0 0 10 5" role="img" aria-label="x"><rect x="1" y="1" width="2" height="3" class="a"><title>t&lt;</title></rect></svg>"#
        );
    }
}
