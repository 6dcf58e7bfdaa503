use crate::sim::load::{KeyPattern, DEFAULT_VALUE_BYTES};
use crate::sim::ids::NodeId;
use crate::sim::view::ProducerView;
use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{self, Lang};
use crate::ui::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LoadFormProps {
    /// (name, partitions) of each topic.
    pub topics: Rc<Vec<(String, u32)>>,
    /// The setup's acks, which the form starts with.
    pub acks: i16,
    pub producers: Vec<ProducerView>,
}

/// The key patterns the form offers, by the value of their option.
fn key_pattern(value: &str) -> KeyPattern {
    match value {
        "fixed-10" => KeyPattern::Fixed(10),
        "fixed-100" => KeyPattern::Fixed(100),
        "random" => KeyPattern::Random,
        _ => KeyPattern::None,
    }
}

/// One labelled field of the form. A function, not repeated markup: each
/// `html!` element is code in the page.
fn field(id: &'static str, label: &'static str, control: Html) -> Html {
    html! { <span class="field"><label for={id}>{ label }</label>{ control }</span> }
}

/// A select's options, `chosen` selected.
fn options(choices: &[(&'static str, String)], chosen: &str) -> Html {
    choices.iter().map(|(value, shown)| html! { <option value={*value} selected={*value == chosen}>{ shown }</option> }).collect()
}

/// A producer's load generator: a steady stream of records at a rate the
/// learner picks, and a line with a Stop button for each one running.
#[function_component(LoadForm)]
pub fn load_form(props: &LoadFormProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let dispatch = use_dispatch();
    let (topic, rate, keys, value_bytes, acks) =
        (use_node_ref(), use_node_ref(), use_node_ref(), use_node_ref(), use_node_ref());
    let onsubmit = {
        let refs = (topic.clone(), rate.clone(), keys.clone(), value_bytes.clone(), acks.clone());
        let state = dispatch.clone();
        let first = props.topics.first().map(|(n, _)| n.clone()).unwrap_or_default();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let input = |r: &NodeRef| r.cast::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let select = |r: &NodeRef| r.cast::<web_sys::HtmlSelectElement>().map(|s| s.value());
            let topic = select(&refs.0).unwrap_or_else(|| first.clone());
            let keys = key_pattern(&select(&refs.2).unwrap_or_default());
            let acks = select(&refs.4).and_then(|a| a.parse::<i16>().ok()).unwrap_or(-1);
            match (input(&refs.1).trim().parse::<u32>(), input(&refs.3).trim().parse::<u32>()) {
                (Ok(records_per_sec), Ok(value_bytes)) => {
                    state.dispatch(Action::StartLoad { topic, records_per_sec, keys, value_bytes, acks })
                }
                _ => state.dispatch(Action::ShowError(t.load_numbers.to_string())),
            }
        })
    };
    let running: Vec<(u32, i16, &crate::sim::load::LoadRun)> = props
        .producers
        .iter()
        .filter_map(|p| match (p.id, &p.load) {
            (NodeId::Client(c), Some(run)) => Some((c, p.acks, run)),
            _ => None,
        })
        .collect();
    // The number fields set no min or max: out of range, the simulation's
    // own refusal says what is allowed in the learner's language, where
    // the browser's validation would hold the form back in its own.
    let keys_options = [
        ("none", t.no_keys.to_string()),
        ("fixed-10", format!("10{}", t.fixed_keys)),
        ("fixed-100", format!("100{}", t.fixed_keys)),
        ("random", t.random_keys.to_string()),
    ];
    let acks_options = [("-1", "all (-1)".to_string()), ("1", "1".to_string()), ("0", "0".to_string())];
    let acks_chosen = match props.acks {
        -1 => "-1",
        1 => "1",
        _ => "0",
    };
    html! {
        <section class="load" aria-label="Steady load">
            <h2 title={t.steady_load_hint}>{ t.steady_load }</h2>
            <form class="produce-form" {onsubmit} aria-label="Start a load generator">
                { field("load-topic", t.topic, html! {
                    <select id="load-topic" ref={topic} aria-label="Load topic">
                        { for props.topics.iter().map(|(name, _)| html! { <option value={name.clone()}>{ name }</option> }) }
                    </select>
                }) }
                { field("load-rate", t.records_per_sec, html! {
                    <input id="load-rate" ref={rate} type="number" value="50"
                        aria-label="Records per second" />
                }) }
                { field("load-keys", t.keys, html! {
                    <select id="load-keys" ref={keys} aria-label="Keys">{ options(&keys_options, "fixed-10") }</select>
                }) }
                { field("load-value-bytes", t.value_bytes, html! {
                    <input id="load-value-bytes" ref={value_bytes} type="number" value={DEFAULT_VALUE_BYTES.to_string()}
                        aria-label="Value bytes" />
                }) }
                { field("load-acks", t.acks, html! {
                    <select id="load-acks" ref={acks} aria-label="Load acks" title={t.acks_hint}>{ options(&acks_options, acks_chosen) }</select>
                }) }
                <button type="submit" aria-label="Start load">{ t.start_load }</button>
            </form>
            <ul class="loads" aria-label="Load generators running">
            { for running.iter().map(|(client, acks, run)| {
                let onclick = {
                    let (state, client) = (dispatch.clone(), *client);
                    Callback::from(move |_: MouseEvent| state.dispatch(Action::StopLoad { client }))
                };
                html! {
                    <li class="load-running">
                        <span>{ i18n::load_running(lang, *client, *acks, run) }</span>
                        <button type="button" aria-label={format!("Stop load of client-{client}")} {onclick}>{ t.stop_load }</button>
                    </li>
                }
            }) }
            </ul>
        </section>
    }
}
