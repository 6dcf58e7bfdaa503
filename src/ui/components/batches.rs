use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BatchesProps {
    /// (position, base offset, last offset, size in bytes) of each batch.
    pub batches: Vec<(u32, i64, i64, u32)>,
    /// The position of the batch shown.
    pub chosen: Option<u32>,
    /// Takes the index of the batch chosen.
    pub on_choose: Callback<usize>,
}

/// The segment's batches, one button each.
#[function_component(Batches)]
pub fn batches(props: &BatchesProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    html! {
        <div class="batches" role="list" aria-label="Batches">
            { for props.batches.iter().enumerate().map(|(i, (position, base, last, size))| {
                let chosen = props.chosen == Some(*position);
                let onclick = props.on_choose.reform(move |_: MouseEvent| i);
                html! {
                    <button role="listitem" class={classes!("batch", chosen.then_some("chosen"))} {onclick}
                        aria-label={format!("Batch at position {position}")} aria-pressed={chosen.to_string()}>
                        { format!("{} {position}: {base}–{last} ({size} {})", t.batch_at, t.bytes_word) }
                    </button>
                }
            }) }
        </div>
    }
}

