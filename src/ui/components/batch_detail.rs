use crate::sim::view::BatchInspection;
use crate::ui::i18n::Lang;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct BatchDetailProps {
    pub batch: BatchInspection,
    pub selected_field: Option<usize>,
    /// Takes the index of the field chosen.
    pub on_field: Callback<usize>,
}

/// One batch decoded field by field beside its hexdump.
#[function_component(BatchDetail)]
pub fn batch_detail(props: &BatchDetailProps) -> Html {
    let t = use_context::<Lang>().unwrap_or_default().texts();
    let b = &props.batch;
    html! {
        <div class="batch-detail">
            <div class="fields">
                <h3>{ format!("{} · {}", t.fields, if b.crc_valid { t.crc_ok } else { t.crc_bad }) }</h3>
                <table>
                    <tbody>
                    { for b.fields.iter().enumerate().map(|(i, f)| {
                        let onclick = props.on_field.reform(move |_: MouseEvent| i);
                        html! {
                            <tr class={classes!((props.selected_field == Some(i)).then_some("chosen"))} {onclick}>
                                <td class="field-name">{ f.name.clone() }</td>
                                <td class="field-bytes">{ format!("{}–{}", f.start, f.start + f.len) }</td>
                                <td class="field-value">{ f.value.clone() }</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
            </div>
            <div class="hexdump" aria-label="Hexdump">
                <h3>{ t.hexdump }</h3>
                { hexdump(&b.bytes, &b.fields, props.selected_field) }
            </div>
        </div>
    }
}

/// Sixteen bytes a row; each byte is coloured by the field it belongs to,
/// and the chosen field's bytes are highlighted.
fn hexdump(bytes: &[u8], fields: &[crate::sim::record::batch::FieldSpan], selected: Option<usize>) -> Html {
    let field_of = |i: usize| fields.iter().position(|f| (f.start as usize..(f.start + f.len) as usize).contains(&i));
    html! {
        <pre class="hex">
            { for bytes.chunks(16).enumerate().map(|(row, chunk)| html! {
                <div class="hex-row">
                    <span class="hex-offset">{ format!("{:08x}  ", row * 16) }</span>
                    { for chunk.iter().enumerate().map(|(col, byte)| {
                        let i = row * 16 + col;
                        let f = field_of(i);
                        let class = classes!(
                            "hex-byte",
                            f.map(|f| if f % 2 == 0 { "even" } else { "odd" }),
                            (f.is_some() && f == selected).then_some("chosen")
                        );
                        html! { <span {class}>{ format!("{byte:02x} ") }</span> }
                    }) }
                </div>
            }) }
        </pre>
    }
}

