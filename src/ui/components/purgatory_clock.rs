use crate::ui::contexts::Clock;
use crate::ui::i18n::{self, Lang};
use crate::ui::layout::Rect;
use crate::ui::svg::Num;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct PurgatoryClockProps {
    /// The purgatory's place in the picture.
    pub area: Rect,
    /// When each delayed operation in it expires, soonest first.
    pub deadlines: Vec<i64>,
}

/// The purgatory's soonest deadline, counting down in its title line. It
/// reads the clock from a context, so only it is drawn again as time runs,
/// not the whole pipeline.
#[function_component(PurgatoryClock)]
pub fn purgatory_clock(props: &PurgatoryClockProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let Clock(now) = use_context::<Clock>().unwrap_or(Clock(0.0));
    let Some(first) = props.deadlines.first() else {
        return html! {};
    };
    let left = (*first as f64 - now).max(0.0) as u64;
    let a = &props.area;
    let (x, y) = (a.x + a.w - 52.0, a.y + 12.5);
    html! {
        <g class="purgatory-clock">
            <title>{ lang.texts().purgatory_clock_hint }</title>
            <circle cx={Num(x).to_string()} cy={Num(y - 3.5).to_string()} r="4" />
            <path d={format!("M{} {} V{} H{}", Num(x), Num(y - 6.0), Num(y - 3.5), Num(x + 2.0))} />
            <text x={Num(x + 7.0).to_string()} y={Num(y).to_string()}>{ i18n::duration(lang, left) }</text>
        </g>
    }
}
