use crate::ui::i18n::Lang;
use crate::ui::narration::NarrationLine;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct NarrationProps {
    pub lines: Rc<Vec<NarrationLine>>,
    /// The last action was refused, and why.
    pub error: Option<String>,
    /// The learner has not acted yet: say what is on the screen.
    pub welcome: bool,
}

/// What just happened, one sentence an event: what the learner follows in
/// full, background work faintly.
#[function_component(Narration)]
pub fn narration(props: &NarrationProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let (focus, background): (Vec<&NarrationLine>, Vec<&NarrationLine>) = props.lines.iter().partition(|l| !l.background);
    html! {
        <section class="narration" aria-label="What just happened" aria-live="polite">
            <h2>{ t.what_just_happened }</h2>
            if let Some(error) = &props.error {
                <p class="error" role="alert">{ error }</p>
            }
            if props.welcome {
                <p class="welcome">{ t.welcome }</p>
            } else if props.lines.is_empty() {
                <p class="hint">{ t.start_hint }</p>
            } else {
                <ul class="told">{ for focus.iter().map(|l| html! { <li>{ l.text.clone() }</li> }) }</ul>
                if !background.is_empty() {
                    <ul class="told background" aria-label="Background">
                        { for background.iter().map(|l| html! { <li>{ l.text.clone() }</li> }) }
                    </ul>
                }
            }
        </section>
    }
}
