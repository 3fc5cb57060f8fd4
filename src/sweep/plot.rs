//! A sweep drawn as SVG: each answer field against the varied field, and
//! below it each field's marginal rate (Δanswer / Δfield between
//! neighbouring values), whose steps show where a band, a cap or a
//! threshold starts.
//!
//! Invariant: `f64` appears here only as drawing coordinates; the rates are
//! computed as decimals, then placed on the page.

use plotters::prelude::*;
use rust_decimal::prelude::ToPrimitive;
use rust_decimal::Decimal;

use super::Sweep;

/// Distinct colours, one per answer field, in column order.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Runs of connected points (a rejection or a missing field breaks a run).
type Runs = Vec<Vec<(f64, f64)>>;

/// Why a plot could not be drawn: the drawing library's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("cannot draw the plot: {message}")]
pub struct PlotError {
    /// What plotters said.
    pub message: String,
}

impl PlotError {
    /// A stable code: `sweep.plot`.
    pub fn code(&self) -> &'static str {
        "sweep::plot"
    }
}

/// The SVG text of a sweep, `title` on top.
pub fn svg(sweep: &Sweep, title: &str) -> Result<String, PlotError> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1000, 900)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, bottom) = root.split_vertically(520);
        let curves: Vec<(String, Runs)> = sweep
            .columns
            .iter()
            .map(|c| (c.clone(), curve(sweep, c)))
            .collect();
        let rates: Vec<(String, Runs)> = sweep
            .columns
            .iter()
            .map(|c| (c.clone(), rate_steps(sweep, c)))
            .collect();
        let (x0, x1) = x_range(sweep);
        panel(&top, title, &sweep.field, "answer", (x0, x1), &curves)?;
        let caption = format!("marginal rate: Δanswer / Δ{}", sweep.field);
        panel(&bottom, &caption, &sweep.field, "rate", (x0, x1), &rates)?;
        root.present().map_err(err)?;
    }
    Ok(text)
}

fn err(e: impl std::fmt::Display) -> PlotError {
    PlotError {
        message: e.to_string(),
    }
}

/// One chart: every field's runs as lines, with a legend.
fn panel(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    caption: &str,
    x_desc: &str,
    y_desc: &str,
    (x0, x1): (f64, f64),
    series: &[(String, Runs)],
) -> Result<(), PlotError> {
    let ys = series
        .iter()
        .flat_map(|(_, runs)| runs.iter().flatten().map(|p| p.1));
    let (mut y0, mut y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| {
        (lo.min(y), hi.max(y))
    });
    if !y0.is_finite() || !y1.is_finite() {
        (y0, y1) = (0.0, 1.0);
    }
    let pad = ((y1 - y0) * 0.05).max(1e-9);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, (y0 - pad)..(y1 + pad))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .draw()
        .map_err(err)?;
    for (i, (name, runs)) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        for (j, run) in runs.iter().enumerate() {
            let drawn = chart
                .draw_series(LineSeries::new(run.iter().copied(), colour.stroke_width(2)))
                .map_err(err)?;
            if j == 0 {
                drawn.label(name.as_str()).legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], colour.stroke_width(2))
                });
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(err)?;
    Ok(())
}

fn coord(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

fn x_range(sweep: &Sweep) -> (f64, f64) {
    let first = sweep.rows.first().map_or(0.0, |r| coord(r.x));
    let last = sweep.rows.last().map_or(1.0, |r| coord(r.x));
    if last > first {
        (first, last)
    } else {
        (first, first + 1.0)
    }
}

/// A field's values as runs of points.
fn curve(sweep: &Sweep, column: &str) -> Runs {
    let mut runs: Runs = vec![Vec::new()];
    for row in &sweep.rows {
        match row.values.get(column) {
            Some(y) => runs
                .last_mut()
                .map_or((), |run| run.push((coord(row.x), coord(*y)))),
            None => runs.push(Vec::new()),
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}

/// A field's marginal rate between neighbours, as a step line: each rate
/// held flat across its interval, so a change of rate is a vertical jump.
fn rate_steps(sweep: &Sweep, column: &str) -> Runs {
    let mut runs: Runs = vec![Vec::new()];
    for pair in sweep.rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let rate = match (a.values.get(column), b.values.get(column)) {
            (Some(ya), Some(yb)) => yb
                .checked_sub(*ya)
                .zip(b.x.checked_sub(a.x))
                .and_then(|(dy, dx)| dy.checked_div(dx)),
            _ => None,
        };
        match rate {
            Some(r) => {
                if let Some(run) = runs.last_mut() {
                    run.push((coord(a.x), coord(r)));
                    run.push((coord(b.x), coord(r)));
                }
            }
            None => runs.push(Vec::new()),
        }
    }
    runs.retain(|r| !r.is_empty());
    runs
}
