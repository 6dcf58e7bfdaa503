//! The Setup panel: a form that chooses the cluster. Applying a setup the
//! simulation accepts starts a fresh run; a refused one is explained next to
//! the form, and the current run stays as it was.

use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{self, Lang};
use crate::ui::setup::{Setup, SetupDraft, SetupError, MAX_TOPICS};
use crate::ui::state::Action;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct SetupPanelProps {
    /// The setup the current run was started from.
    pub setup: Setup,
    /// The last refused setup and why.
    pub error: Option<SetupError>,
}

fn text_of(e: &InputEvent) -> String {
    e.target_dyn_into::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default()
}

#[function_component(SetupPanel)]
pub fn setup_panel(props: &SetupPanelProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let state = &use_dispatch();
    let draft = use_state(|| SetupDraft::from(&props.setup));

    // One callback per field: each writes its text into the draft.
    let edit = |f: fn(&mut SetupDraft, String)| {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*draft).clone();
            f(&mut d, text_of(&e));
            draft.set(d);
        })
    };
    let edit_topic = |i: usize, f: fn(&mut (String, String, String), String)| {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            let mut d = (*draft).clone();
            if let Some(row) = d.topics.get_mut(i) {
                f(row, text_of(&e));
            }
            draft.set(d);
        })
    };
    // One callback per select: each writes its parsed choice into the draft.
    let choose = |f: fn(&mut SetupDraft, &str) -> Option<()>| {
        let draft = draft.clone();
        Callback::from(move |e: Event| {
            if let Some(select) = e.target_dyn_into::<web_sys::HtmlSelectElement>() {
                let mut d = (*draft).clone();
                if f(&mut d, &select.value()).is_some() {
                    draft.set(d);
                }
            }
        })
    };
    let on_consumers = choose(|d, v| v.parse().ok().map(|n| d.consumers = n));
    let on_acks = choose(|d, v| v.parse().ok().map(|a| d.acks = a));
    let on_controllers = choose(|d, v| v.parse().ok().map(|n| d.controllers = n));
    let toggle = |f: fn(&mut SetupDraft, bool)| {
        let draft = draft.clone();
        Callback::from(move |e: Event| {
            if let Some(c) = e.target_dyn_into::<web_sys::HtmlInputElement>() {
                let mut d = (*draft).clone();
                f(&mut d, c.checked());
                draft.set(d);
            }
        })
    };
    let on_unclean = toggle(|d, on| d.unclean_leader_election_enable = on);
    let on_pre_vote = toggle(|d, on| d.pre_vote = on);
    let on_add = {
        let draft = draft.clone();
        Callback::from(move |_: MouseEvent| {
            let mut d = (*draft).clone();
            if d.topics.len() < MAX_TOPICS {
                d.topics.push((format!("topic-{}", d.topics.len() + 1), "1".into(), "1".into()));
                draft.set(d);
            }
        })
    };
    let on_submit = {
        let (draft, state) = (draft.clone(), state.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match draft.parse() {
                Ok(setup) => state.dispatch(Action::ApplySetup(setup)),
                Err(error) => state.dispatch(Action::RejectSetup(error)),
            }
        })
    };
    let one_topic = draft.topics.len() <= 1;

    html! {
        <section class="setup" aria-label="Setup">
            <p class="setup-summary" aria-label="Current setup">{ i18n::setup_summary(lang, &props.setup) }</p>
                <form id="setup-form" class="setup-form" onsubmit={on_submit} aria-label="Setup form" novalidate=true>
                    <p class="hint">{ t.setup_intro }</p>
                    <div class="setup-grid">
                        <div class="field">
                            <label for="setup-brokers">{ t.brokers }</label>
                            <input id="setup-brokers" type="text" inputmode="numeric" aria-label="Brokers"
                                value={draft.brokers.clone()} oninput={edit(|d, v| d.brokers = v)} />
                        </div>
                        <div class="field">
                            <label for="setup-controllers">{ t.controllers }</label>
                            <select id="setup-controllers" aria-label="Controllers" onchange={on_controllers} aria-describedby="controllers-note">
                                { for [1u32, 3, 5].into_iter().map(|n| html! {
                                    <option value={n.to_string()} selected={draft.controllers == n}>{ n.to_string() }</option>
                                }) }
                            </select>
                            <small class="hint" id="controllers-note">{ t.controllers_note }</small>
                        </div>
                        <div class="field">
                            <label for="setup-consumers">{ t.consumers }</label>
                            <select id="setup-consumers" aria-label="Consumers" onchange={on_consumers} aria-describedby="consumers-note">
                                { for (1..=crate::ui::setup::MAX_CONSUMERS).map(|n| html! {
                                    <option value={n.to_string()} selected={draft.consumers == n}>{ n.to_string() }</option>
                                }) }
                            </select>
                            <small class="hint" id="consumers-note">{ t.consumers_note }</small>
                        </div>
                        <div class="field">
                            <label for="setup-acks">{ t.setup_acks }</label>
                            <select id="setup-acks" aria-label="Setup acks" onchange={on_acks} aria-describedby="setup-acks-hint">
                                <option value="-1" selected={draft.acks == -1}>{ "all (-1)" }</option>
                                <option value="1" selected={draft.acks == 1}>{ "1" }</option>
                                <option value="0" selected={draft.acks == 0}>{ "0" }</option>
                            </select>
                            <small class="hint" id="setup-acks-hint">{ t.setup_acks_hint }</small>
                        </div>
                        <div class="field">
                            <label for="setup-min-isr">{ t.min_isr_label }</label>
                            <input id="setup-min-isr" type="text" inputmode="numeric" aria-label="min.insync.replicas" aria-describedby="min-isr-hint"
                                value={draft.min_insync_replicas.clone()} oninput={edit(|d, v| d.min_insync_replicas = v)} />
                            <small class="hint" id="min-isr-hint">{ t.min_isr_hint }</small>
                        </div>
                        <div class="field">
                            <label for="setup-seed">{ t.seed }</label>
                            <input id="setup-seed" type="text" inputmode="numeric" aria-label="Seed" aria-describedby="seed-hint"
                                value={draft.seed.clone()} oninput={edit(|d, v| d.seed = v)} />
                            <small class="hint" id="seed-hint">{ t.seed_hint }</small>
                        </div>
                    </div>
                    <fieldset class="topics">
                        <legend>{ t.topics }</legend>
                        <div class="topic-row topic-header" aria-hidden="true">
                            <span>{ t.topic_name }</span>
                            <span>{ t.partitions_field }</span>
                            <span>{ t.replication_factor }</span>
                            <span></span>
                        </div>
                        { for draft.topics.iter().enumerate().map(|(i, (name, partitions, rf))| {
                            let n = i + 1;
                            let on_remove = {
                                let draft = draft.clone();
                                Callback::from(move |_: MouseEvent| {
                                    let mut d = (*draft).clone();
                                    if d.topics.len() > 1 {
                                        d.topics.remove(i);
                                        draft.set(d);
                                    }
                                })
                            };
                            html! {
                                <div class="topic-row" role="group" aria-label={format!("Topic {n}")}>
                                    <input type="text" aria-label={format!("Topic {n} name")} value={name.clone()}
                                        oninput={edit_topic(i, |r, v| r.0 = v)} />
                                    <input type="text" inputmode="numeric" aria-label={format!("Topic {n} partitions")}
                                        value={partitions.clone()} oninput={edit_topic(i, |r, v| r.1 = v)} />
                                    <input type="text" inputmode="numeric" aria-label={format!("Topic {n} replication factor")}
                                        value={rf.clone()} oninput={edit_topic(i, |r, v| r.2 = v)} />
                                    <button type="button" class="secondary" onclick={on_remove} disabled={one_topic}
                                        aria-label={format!("Remove topic {n}")}>{ t.remove_topic }</button>
                                </div>
                            }
                        }) }
                        <button type="button" class="secondary" onclick={on_add} disabled={draft.topics.len() >= MAX_TOPICS}
                            aria-label="Add topic">{ t.add_topic }</button>
                    </fieldset>
                    { switch("unclean.leader.election.enable", "unclean-note", draft.unclean_leader_election_enable, on_unclean, t.unclean_label, t.unclean_note) }
                    { switch("Pre-vote", "pre-vote-note", draft.pre_vote, on_pre_vote, t.pre_vote_label, t.pre_vote_note) }
                    <div class="setup-apply">
                        <button type="submit" aria-label="Apply setup">{ t.apply_setup }</button>
                        if let Some(error) = &props.error {
                            <p class="error setup-error" role="alert">
                                { format!("{} {}", i18n::setup_error(lang, error), t.setup_not_applied) }
                            </p>
                        }
                    </div>
                </form>
        </section>
    }
}

/// A checkbox with its label and the note that explains it.
fn switch(name: &'static str, note_id: &'static str, checked: bool, onchange: Callback<Event>, label: &str, note: &str) -> Html {
    html! {
        <>
            <label class="checkbox">
                <input type="checkbox" aria-label={name} aria-describedby={note_id} {checked} {onchange} />
                <span>{ label.to_string() }</span>
            </label>
            <p class="hint" id={note_id}>{ note.to_string() }</p>
        </>
    }
}
