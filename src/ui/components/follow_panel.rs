use crate::ui::hooks::use_action;
use crate::ui::i18n::Lang;
use crate::ui::state::{Action, Followed};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FollowPanelProps {
    pub followed: Followed,
    pub lines: Vec<String>,
    pub release: Option<String>,
    pub finished: bool,
    pub stalled: bool,
    pub can_step: bool,
}

/// The followed request's path so far, one line per event, newest last.
#[function_component(FollowPanel)]
pub fn follow_panel(props: &FollowPanelProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let on_next = use_action(|| Action::NextHop);
    let on_stop = use_action(|| Action::Unfollow);
    let list = use_node_ref();
    {
        // Keep the newest hop in sight.
        let list = list.clone();
        let count = props.lines.len();
        use_effect_with(count, move |_| {
            if let Some(el) = list.cast::<web_sys::Element>() {
                el.set_scroll_top(el.scroll_height());
            }
        });
    }
    let f = &props.followed;
    html! {
        <section class="following" aria-label="Following">
            <div class="following-head">
                <h2>{ format!("{}: {} {}", t.following, f.api.name(), f.request) }</h2>
                <button onclick={on_next} disabled={props.finished || !props.can_step} aria-label="Next hop">{ t.next_hop }</button>
                <button class="secondary" onclick={on_stop} aria-label="Stop following">{ t.stop_following }</button>
            </div>
            if props.finished {
                <p class="hint">{ t.request_finished }</p>
            } else if props.stalled {
                <p class="hint">{ t.did_not_move }</p>
            }
            if let Some(r) = &props.release {
                <p class="release" aria-label="Released by">{ r }</p>
            }
            if props.lines.is_empty() {
                <p class="hint">{ t.no_hops_yet }</p>
            } else {
                <ol class="hops" aria-label="Hops" ref={list}>
                    { for props.lines.iter().map(|l| html! { <li>{ l }</li> }) }
                </ol>
            }
        </section>
    }
}

