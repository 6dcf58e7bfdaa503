use crate::sim::invariants::Violation;
use crate::ui::alarms::{breach_text, guarantee_note, invariant_name};
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::Lang;
use crate::ui::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct AlarmsProps {
    pub violations: Vec<Violation>,
}

#[function_component(Alarms)]
pub fn alarms(props: &AlarmsProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let dispatch = use_dispatch();
    html! {
        <section class={classes!("alarms", (!props.violations.is_empty()).then_some("raised"))} role="region" aria-label="Alarms">
            <h2>{ format!("{} ({})", t.alarms, props.violations.len()) }</h2>
            if props.violations.is_empty() {
                <p class="hint">{ t.no_alarms }</p>
            } else {
                <ul>
                { for props.violations.iter().map(|v| {
                    let step = v.step;
                    let dispatch = dispatch.clone();
                    let onclick = Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::JumpToStep(step)));
                    html! {
                        <li role="alert">
                            <strong>{ invariant_name(lang, v.invariant()) }</strong>
                            { format!(" · {} {} · {} ms · {}", t.step_word, v.step, v.time_ms, v.node) }
                            <p class="alarm-description">{ breach_text(lang, v.partition.as_ref(), &v.breach) }</p>
                            if let Some(g) = v.guarantee {
                                <p class="alarm-guarantee">{ guarantee_note(lang, g) }</p>
                            }
                            <button type="button" class="secondary" {onclick} aria-label={format!("Jump to step {step}")}>
                                { format!("{} {step}", t.jump_to_step) }
                            </button>
                        </li>
                    }
                }) }
                </ul>
            }
        </section>
    }
}
