use crate::ui::hooks::use_dispatch;
use crate::ui::i18n::Lang;
use crate::ui::state::Action;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FetchFormProps {
    /// (name, partitions) of each topic.
    pub topics: Rc<Vec<(String, u32)>>,
    /// How many consumers the setup has; with more than one the form asks
    /// which fetches.
    pub consumers: u32,
}

#[function_component(FetchForm)]
pub fn fetch_form(props: &FetchFormProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let dispatch = use_dispatch();
    let chosen_topic = use_state(|| 0usize);
    let partition = use_node_ref();
    let offset = use_node_ref();
    let min_bytes = use_node_ref();
    let max_wait = use_node_ref();
    let consumer = use_node_ref();
    let (topic_name, partitions) = props.topics.get(*chosen_topic).or(props.topics.first()).cloned().unwrap_or_default();
    let onsubmit = {
        let refs = (partition.clone(), offset.clone(), min_bytes.clone(), max_wait.clone(), consumer.clone());
        let state = dispatch.clone();
        let topic = topic_name.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let read = |r: &NodeRef| {
                r.cast::<web_sys::HtmlInputElement>()
                    .map(|i| i.value())
                    .or_else(|| r.cast::<web_sys::HtmlSelectElement>().map(|s| s.value()))
                    .unwrap_or_default()
            };
            let partition = read(&refs.0).parse::<u32>().unwrap_or(0);
            let offset_text = read(&refs.1);
            let offset = if offset_text.trim().is_empty() {
                None
            } else {
                match offset_text.trim().parse::<i64>() {
                    Ok(o) => Some(o),
                    Err(_) => {
                        let t = lang.texts();
                        state.dispatch(Action::ShowError(format!("{} “{offset_text}” {}.", t.offset, t.not_a_whole_number)));
                        return;
                    }
                }
            };
            let min_bytes = read(&refs.2).trim().parse::<i32>().unwrap_or(1);
            let max_wait_ms = read(&refs.3).trim().parse::<i32>().unwrap_or(500);
            let consumer = read(&refs.4).parse::<u32>().unwrap_or(0);
            state.dispatch(Action::Fetch { consumer, topic: topic.clone(), partition, offset, min_bytes, max_wait_ms });
        })
    };
    let on_topic = {
        let chosen_topic = chosen_topic.clone();
        Callback::from(move |e: Event| {
            if let Some(i) = e.target_dyn_into::<web_sys::HtmlSelectElement>().and_then(|s| s.value().parse().ok()) {
                chosen_topic.set(i);
            }
        })
    };
    html! {
        <form class="fetch-form" {onsubmit} aria-label="Fetch records">
            if props.consumers > 1 {
                <span class="field">
                    <label for="fetch-consumer">{ t.consumer }</label>
                    <select id="fetch-consumer" ref={consumer} aria-label="Consumer">
                        { for (0..props.consumers).map(|n| html! {
                            <option value={n.to_string()}>{ format!("client-{}", crate::ui::setup::CONSUMER + n) }</option>
                        }) }
                    </select>
                </span>
            }
            <span class="field">
                <label for="fetch-topic">{ t.topic }</label>
                <select id="fetch-topic" aria-label="Fetch topic" onchange={on_topic}>
                    { for props.topics.iter().enumerate().map(|(i, (name, _))| html! {
                        <option value={i.to_string()} selected={i == *chosen_topic}>{ name }</option>
                    }) }
                </select>
            </span>
            <span class="field">
                <label for="fetch-partition">{ t.partition }</label>
                <select id="fetch-partition" ref={partition} aria-label="Partition">
                    { for (0..partitions).map(|p| html! { <option value={p.to_string()}>{ p }</option> }) }
                </select>
            </span>
            <span class="field">
                <label for="fetch-offset">{ t.offset }</label>
                <input id="fetch-offset" ref={offset} type="text" inputmode="numeric" placeholder={t.offset_placeholder} size="5" aria-label="Offset" />
            </span>
            <span class="field">
                <label for="fetch-min-bytes">{ t.min_bytes }</label>
                <input id="fetch-min-bytes" ref={min_bytes} type="text" inputmode="numeric" value="1" size="5" aria-label="Min bytes" />
            </span>
            <span class="field">
                <label for="fetch-max-wait">{ t.max_wait_ms }</label>
                <input id="fetch-max-wait" ref={max_wait} type="text" inputmode="numeric" value="500" size="5" aria-label="Max wait ms" />
            </span>
            <button type="submit" aria-label="Fetch">{ t.fetch }</button>
        </form>
    }
}
