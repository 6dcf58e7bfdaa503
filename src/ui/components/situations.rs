use crate::sim::view::ClusterView;
use crate::ui::i18n::Lang;
use crate::ui::story;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SituationsProps {
    pub view: Rc<ClusterView>,
    /// The learner has not produced, stepped, played or acted yet.
    pub show_hint: bool,
    pub now_ms: f64,
    /// What Play or the last Step is doing, when it says something.
    pub status: Option<String>,
}

/// The line above the cluster picture: the first hint until it has been
/// used, then whatever is going on that the learner should notice.
#[function_component(Situations)]
pub fn situations(props: &SituationsProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let now = story::situations(&props.view, props.now_ms);
    html! {
        <div class="situations" role="status" aria-label="Going on now">
            if let Some(status) = &props.status {
                <p class="play-status">{ status }</p>
            }
            if props.show_hint {
                <p class="first-hint">{ t.first_hint }</p>
            }
            { for now.iter().map(|s| html! {
                <p class={classes!("situation", situation_class(s))}>{ story::sentence(lang, s) }</p>
            }) }
            if !props.show_hint && now.is_empty() {
                <p class="situation calm">{ t.all_calm }</p>
            }
        </div>
    }
}

fn situation_class(s: &story::Situation) -> &'static str {
    match s {
        story::Situation::DeadLeader { .. } | story::Situation::Offline { .. } | story::Situation::Fencing { .. } => "danger",
        story::Situation::Electing { .. } => "election",
        story::Situation::NoActiveController { .. } | story::Situation::Election { .. } => "election",
        story::Situation::NetworkCut { .. } => "danger",
        story::Situation::Waiting { .. } => "waiting",
    }
}
