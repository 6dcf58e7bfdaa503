use super::{Consumed, FetchForm, LoadForm, ProduceForm, Produced, SetupPanel, SharePanel};
use crate::sim::view::{ConsumerView, ProducerView};
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::Lang;
use crate::ui::setup::{Setup, SetupError};
use crate::ui::state::{Action, DockTab, ShareStatus};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct DockProps {
    pub open: Option<DockTab>,
    /// (name, partitions) of each topic.
    pub topics: Rc<Vec<(String, u32)>>,
    pub setup: Setup,
    pub setup_error: Option<SetupError>,
    pub share: ShareStatus,
    pub producers: Vec<ProducerView>,
    pub consumers: Vec<ConsumerView>,
}

/// What the learner does to the cluster as a client or as its operator:
/// produce, fetch, set the cluster up, share the run. One panel at a time,
/// beside the stage, so opening one never pushes the stage down.
#[function_component(Dock)]
pub fn dock(props: &DockProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let dispatch = use_dispatch();
    let tab = |which: DockTab, name: &'static str, shown: &'static str| {
        let selected = props.open == Some(which);
        let onclick = {
            let dispatch = dispatch.clone();
            Callback::from(move |_: MouseEvent| dispatch.dispatch(Action::ToggleDock(which)))
        };
        html! {
            <button type="button" role="tab" id={format!("dock-tab-{}", name.to_ascii_lowercase())} class={classes!("tab", selected.then_some("selected"))}
                aria-selected={selected.to_string()} aria-controls="dock-panel" aria-label={name} {onclick}>{ shown }</button>
        }
    };
    html! {
        <section class="dock" aria-label="Actions">
            <div class="tabs" role="tablist" aria-label="Actions">
                { tab(DockTab::Produce, "Produce", t.produce) }
                { tab(DockTab::Load, "Load", t.load_tab) }
                { tab(DockTab::Fetch, "Fetch", t.fetch) }
                { tab(DockTab::Setup, "Setup", t.setup) }
                { tab(DockTab::Share, "Share", t.share) }
            </div>
            if let Some(open) = props.open {
                <div class="dock-panel" id="dock-panel" role="tabpanel">
                    { match open {
                        DockTab::Produce => html! {
                            <>
                                <ProduceForm topics={props.topics.clone()} acks={props.setup.acks} />
                                <Produced producers={props.producers.clone()} />
                            </>
                        },
                        DockTab::Load => html! {
                            <>
                                <LoadForm topics={props.topics.clone()} acks={props.setup.acks} producers={props.producers.clone()} />
                                <Produced producers={props.producers.clone()} />
                            </>
                        },
                        DockTab::Fetch => html! {
                            <>
                                <FetchForm topics={props.topics.clone()} consumers={props.setup.consumers} />
                                <Consumed consumers={props.consumers.clone()} />
                            </>
                        },
                        DockTab::Setup => html! { <SetupPanel setup={props.setup.clone()} error={props.setup_error.clone()} /> },
                        DockTab::Share => html! { <SharePanel share={props.share} /> },
                    } }
                </div>
            }
        </section>
    }
}
