use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::{self, Lang};
use crate::ui::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ProduceFormProps {
    /// (name, partitions) of each topic.
    pub topics: Rc<Vec<(String, u32)>>,
    /// The setup's acks, which the form starts with.
    pub acks: i16,
}

#[function_component(ProduceForm)]
pub fn produce_form(props: &ProduceFormProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let topic = use_node_ref();
    let key = use_node_ref();
    let value = use_node_ref();
    let acks = use_node_ref();
    let headers = use_node_ref();
    let lang = use_context::<Lang>().unwrap_or_default();
    let dispatch = use_dispatch();
    let onsubmit = {
        let (topic, key, value, acks, state) = (topic.clone(), key.clone(), value.clone(), acks.clone(), dispatch.clone());
        let headers = headers.clone();
        let first = props.topics.first().map(|(n, _)| n.clone()).unwrap_or_default();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let read = |r: &NodeRef| r.cast::<web_sys::HtmlInputElement>().map(|i| i.value()).unwrap_or_default();
            let acks = acks.cast::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse::<i16>().ok()).unwrap_or(-1);
            let topic = topic.cast::<web_sys::HtmlSelectElement>().map(|s| s.value()).unwrap_or_else(|| first.clone());
            match crate::ui::forms::parse_headers(&read(&headers)) {
                Ok(headers) => state.dispatch(Action::Produce { topic, key: read(&key), value: read(&value), headers, acks }),
                Err(e) => state.dispatch(Action::ShowError(i18n::header_error(lang, &e))),
            }
        })
    };
    html! {
        <form class="produce-form" {onsubmit} aria-label="Produce a record">
            <span class="field">
                <label for="produce-topic">{ t.topic }</label>
                <select id="produce-topic" ref={topic} aria-label="Produce topic">
                    { for props.topics.iter().map(|(name, _)| html! { <option value={name.clone()}>{ name }</option> }) }
                </select>
            </span>
            <span class="field">
                <label for="produce-key">{ t.key }</label>
                <input id="produce-key" ref={key} type="text" value="user-42" aria-label="Key" />
            </span>
            <span class="field">
                <label for="produce-value">{ t.value }</label>
                <input id="produce-value" ref={value} type="text" value="hello" aria-label="Value" />
            </span>
            <span class="field">
                <label for="produce-headers">{ t.headers }</label>
                <input id="produce-headers" ref={headers} type="text" placeholder="trace-id=7, source=web" size="14"
                    aria-label="Headers" title={t.headers_hint} />
            </span>
            <span class="field">
                <label for="produce-acks">{ t.acks }</label>
                <select id="produce-acks" ref={acks} aria-label="Acks" title={t.acks_hint}>
                    <option value="-1" selected={props.acks == -1}>{ "all (-1)" }</option>
                    <option value="1" selected={props.acks == 1}>{ "1" }</option>
                    <option value="0" selected={props.acks == 0}>{ "0" }</option>
                </select>
            </span>
            <button type="submit" aria-label="Produce">{ t.produce }</button>
        </form>
    }
}

