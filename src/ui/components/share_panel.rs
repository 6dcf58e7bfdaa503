use crate::ui::hooks::use_action;
use crate::ui::i18n::Lang;
use crate::ui::state::{Action, ShareStatus};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SharePanelProps {
    pub share: ShareStatus,
}

/// Copy share link: the whole run (setup, seed, every action and the step
/// shown) goes into the address bar's fragment, and to the clipboard when
/// the browser allows it.
#[function_component(SharePanel)]
pub fn share_panel(props: &SharePanelProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let on_share = use_action(|| Action::ShareLink);
    html! {
        <div class="share" role="group" aria-label="Share">
            <p class="hint">{ t.share_intro }</p>
            <button class="secondary" onclick={on_share} aria-label="Copy share link">{ t.copy_share_link }</button>
            <p class="share-status" role="status">{ match props.share {
                ShareStatus::None => "",
                ShareStatus::InAddressBar => t.link_in_address_bar,
                ShareStatus::Copied => t.link_copied,
                ShareStatus::TooLong => t.link_too_long,
            } }</p>
        </div>
    }
}
