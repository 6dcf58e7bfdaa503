use crate::sim::purgatory::timing_wheel::WheelView;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TimingWheelProps {
    /// "Produce" or "Fetch": which purgatory's timer.
    pub name: AttrValue,
    pub wheel: WheelView,
}

/// The purgatory's timer, as Kafka's hierarchical timing wheel: a row of
/// buckets per level (tickMs × wheelSize), the bucket "now" is in marked,
/// and the buckets holding delayed operations filled.
#[function_component(TimingWheel)]
pub fn timing_wheel(props: &TimingWheelProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let w = &props.wheel;
    html! {
        <div class="timing-wheel" role="group" aria-label={format!("{} timing wheel", props.name)}>
            <p class="wheel-title">{ format!("{} · {}: {} {}", props.name, t.timing_wheel, w.task_count, t.timers_word) }</p>
            { for w.levels.iter().map(|level| {
                let now = (level.current_time_ms / level.tick_ms.max(1)).rem_euclid(i64::from(level.wheel_size.max(1))) as u32;
                html! {
                    <div class="wheel-level">
                        <span class="wheel-scale">{ format!("{} ms × {}", level.tick_ms, level.wheel_size) }</span>
                        <span class="wheel-buckets">
                        { for level.buckets.iter().map(|b| {
                            let busy = !b.task_ids.is_empty();
                            let ids: Vec<String> = b.task_ids.iter().map(|i| i.to_string()).collect();
                            let title = match b.expiration_ms {
                                Some(e) if busy => format!("{} {}: {e} ms · {} {}", t.bucket_word, b.index, t.operations_word, ids.join(", ")),
                                _ => format!("{} {}", t.bucket_word, b.index),
                            };
                            html! { <span class={classes!("bucket", busy.then_some("busy"), (b.index == now).then_some("now"))} {title}></span> }
                        }) }
                        </span>
                    </div>
                }
            }) }
        </div>
    }
}
