use crate::ui::hooks::{use_action, use_dispatch};
use crate::ui::i18n::{self, Lang};
use crate::ui::focus::Focus;
use crate::ui::state::{Action, SPEEDS};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TransportProps {
    pub playing: bool,
    /// An index into the speeds.
    pub speed: usize,
    pub can_step: bool,
    pub can_step_back: bool,
    pub timeline_len: usize,
    pub timeline_index: usize,
    pub step: u64,
    pub time_ms: u64,
    pub has_quorum: bool,
    pub focus: Focus,
}

/// The transport bar, fixed at the bottom of the window: Step back, Play or
/// Pause, Step, the speed, the timeline and the clock.
#[function_component(Transport)]
pub fn transport(props: &TransportProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let dispatch = use_dispatch();
    let on_step = use_action(|| Action::Step);
    let on_step_back = use_action(|| Action::StepBack);
    let on_play = use_action(|| Action::Play);
    let on_pause = use_action(|| Action::Pause);
    let on_next_controller_event = use_action(|| Action::NextControllerEvent);
    let range = |make: fn(usize) -> Action| {
        let dispatch = dispatch.clone();
        Callback::from(move |e: InputEvent| {
            if let Some(v) = e.target_dyn_into::<web_sys::HtmlInputElement>().and_then(|i| i.value().parse().ok()) {
                dispatch.dispatch(make(v));
            }
        })
    };
    let last = props.timeline_len.saturating_sub(1);
    let on_focus = {
        let dispatch = dispatch.clone();
        Callback::from(move |e: Event| {
            let chosen = e.target_dyn_into::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse::<usize>().ok());
            if let Some(focus) = chosen.and_then(|i| Focus::ALL.get(i)) {
                dispatch.dispatch(Action::SetFocus(*focus));
            }
        })
    };
    html! {
        <footer class="transport" role="group" aria-label="Transport">
            <div class="transport-buttons" role="group" aria-label="Stepping">
                <button class="secondary" onclick={on_step_back} disabled={!props.can_step_back} aria-label="Step back" title="Step back (←)">{ t.step_back }</button>
                if props.playing {
                    <button class="play" onclick={on_pause} aria-label="Pause" title="Pause (Space)">{ t.pause }</button>
                } else {
                    <button class="play" onclick={on_play} disabled={!props.can_step} aria-label="Play" title="Play (Space)">{ t.play }</button>
                }
                <button class="secondary" onclick={on_step} disabled={!props.can_step} aria-label="Step" title="Step (→)">{ t.step }</button>
                if props.has_quorum {
                    <button class="quiet next-controller" onclick={on_next_controller_event} disabled={!props.can_step}
                        aria-label="Next controller event" title={t.next_controller_event_hint}>{ t.next_controller_event }</button>
                }
            </div>
            <label class="speed">
                <span>{ t.speed }</span>
                <input type="range" min="0" max={(SPEEDS.len() - 1).to_string()} value={props.speed.to_string()}
                    aria-label="Speed" aria-valuetext={format!("{} simulated time", i18n::speed_label(SPEEDS[props.speed]))}
                    oninput={range(Action::SetSpeed)} />
                <span class="speed-value" title={t.speed_hint}>{ i18n::speed_label(SPEEDS[props.speed]) }</span>
            </label>
            <label class="focus">
                <span>{ t.focus }</span>
                <select aria-label="Focus" title={t.focus_hint} onchange={on_focus}>
                    { for Focus::ALL.iter().enumerate().map(|(i, f)| html! {
                        <option value={i.to_string()} selected={*f == props.focus}>{ i18n::focus_name(lang, *f) }</option>
                    }) }
                </select>
            </label>
            <label class="timeline">
                <span>{ t.timeline }</span>
                <input type="range" min="0" max={last.to_string()} value={props.timeline_index.to_string()}
                    aria-label="Timeline" oninput={range(Action::GoTo)} />
                <span class="timeline-value">{ format!("{} / {last}", props.timeline_index) }</span>
            </label>
            <span class="clock" aria-label={format!("step {} · {} ms", props.step, props.time_ms)}>
                <strong>{ i18n::clock(lang, props.time_ms) }</strong>
                <span class="clock-step">{ format!("{} {}", t.step_word, props.step) }</span>
            </span>
        </footer>
    }
}
