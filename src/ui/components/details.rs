use super::{Alarms, Partitions, Quorum, SegmentInspector};
use crate::sim::invariants::Violation;
use crate::sim::view::{BrokerStatus, ClusterView};
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{Lang, Texts};
use crate::ui::session::Session;
use crate::ui::state::{Action, DetailsTab};
use crate::ui::Shared;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DetailsProps {
    pub tab: DetailsTab,
    pub view: Rc<ClusterView>,
    pub violations: Rc<Vec<Violation>>,
    pub session: Shared<RefCell<Session>>,
}

/// The tab's title in the page's language.
pub fn tab_title(t: &'static Texts, tab: DetailsTab) -> &'static str {
    match tab {
        DetailsTab::Partitions => t.partitions,
        DetailsTab::Quorum => t.controller_quorum,
        DetailsTab::Alarms => t.alarms,
        DetailsTab::Segments => t.segment_inspector,
    }
}

/// The tab's short name, for the top bar's links.
pub fn short_title(t: &'static Texts, tab: DetailsTab) -> &'static str {
    match tab {
        DetailsTab::Partitions => t.partitions,
        DetailsTab::Quorum => t.quorum_short,
        DetailsTab::Alarms => t.alarms,
        DetailsTab::Segments => t.segments_short,
    }
}

/// Below the stage, one click from anywhere: the partitions, the controller
/// quorum, the alarms and the segment inspector, one tab at a time (only
/// the open one is drawn, so playing stays cheap).
#[function_component(Details)]
pub fn details(props: &DetailsProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let dispatch = use_dispatch();
    let view = &props.view;
    html! {
        <section class="details" id="details" aria-label="Details">
            <div class="tabs" role="tablist" aria-label="Details">
                { for DetailsTab::ALL.iter().map(|tab| {
                    let tab = *tab;
                    let selected = props.tab == tab;
                    let onclick = {
                        let dispatch = dispatch.clone();
                        Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::ShowDetails { tab, jump: false }))
                    };
                    let count = (tab == DetailsTab::Alarms && !props.violations.is_empty()).then(|| props.violations.len());
                    html! {
                        <button type="button" role="tab" class={classes!("tab", selected.then_some("selected"),
                            count.is_some_and(|c| c > 0).then_some("alarm"))}
                            aria-selected={selected.to_string()} aria-controls="details-panel" aria-label={tab.name()} {onclick}>
                            { tab_title(t, tab) }
                            if let Some(c) = count {
                                <span class="badge">{ c }</span>
                            }
                        </button>
                    }
                }) }
            </div>
            <div class="details-panel" id="details-panel" role="tabpanel">
                { match props.tab {
                    DetailsTab::Partitions => html! {
                        <Partitions partitions={view.partitions.clone()}
                            stopped={view.brokers.iter().filter(|b| b.status == BrokerStatus::Stopped).map(|b| b.id).collect::<Vec<_>>()} />
                    },
                    DetailsTab::Quorum => html! { <Quorum view={view.clone()} /> },
                    DetailsTab::Alarms => html! { <Alarms violations={(*props.violations).clone()} /> },
                    DetailsTab::Segments => html! { <SegmentInspector session={props.session.clone()} view={view.clone()} /> },
                } }
            </div>
        </section>
    }
}
