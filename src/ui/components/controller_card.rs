use crate::sim::raft::state::RaftRole;
use crate::sim::view::ControllerView;
use crate::ui::i18n::{self, Lang};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ControllerCardProps {
    pub controller: ControllerView,
    pub isolated: bool,
}

#[function_component(ControllerCard)]
pub fn controller_card(props: &ControllerCardProps) -> Html {
    let lang = use_context::<Lang>().unwrap_or_default();
    let t = lang.texts();
    let c = &props.controller;
    let id = c.id;
    let (role_class, role_text) = match &c.raft {
        None => ("stopped", t.status_stopped.to_string()),
        Some(r) => {
            let name = match r.role {
                RaftRole::Leader { .. } => "Leader",
                RaftRole::Follower { .. } => "Follower",
                RaftRole::Candidate { .. } => "Candidate",
                RaftRole::Prospective { .. } => "Prospective",
                RaftRole::Unattached { .. } => "Unattached",
                RaftRole::Resigned { .. } => "Resigned",
            };
            (if c.active { "active" } else { "voter" }, i18n::raft_role(lang, name))
        }
    };
    let facts = match &c.raft {
        Some(r) => {
            let voted = r.voted_for.map_or_else(|| "–".to_string(), |v| v.to_string());
            let hw = r.high_watermark.map_or_else(|| "?".to_string(), |h| h.to_string());
            format!("{} {} · {} {voted} · {} LEO {} · HW {hw}", t.epoch, r.epoch, t.voted_for, t.metadata_log, r.log_end_offset)
        }
        None => format!("{} LEO {}", t.metadata_log, c.log_end_offset),
    };
    let detail = c.raft.as_ref().and_then(|r| match &r.role {
        RaftRole::Leader { progress } => Some(
            progress
                .iter()
                .map(|p| format!("{} {}: {}", t.controller, p.id, p.end_offset.map_or_else(|| "?".to_string(), |o| o.to_string())))
                .collect::<Vec<_>>()
                .join(" · "),
        ),
        RaftRole::Candidate { votes, .. } | RaftRole::Prospective { votes } => {
            Some(format!("{} {}", lang_votes(lang), crate::ui::story::number_list(&votes.granted)))
        }
        _ => None,
    });
    html! {
        <div class={classes!("controller", role_class)} role="group" aria-label={format!("Controller {id}")}>
            <div class="node-head">
                <h3>{ format!("{} {id}", t.controller) }</h3>
                <span class={classes!("badge", role_class)}>{ role_text }</span>
            </div>
            <p class="controller-facts">{ facts }</p>
            if let Some(d) = detail {
                <p class="controller-detail">{ d }</p>
            }
            if props.isolated {
                <span class="badge isolated" title={t.isolated_hint}>{ t.isolated }</span>
            }
        </div>
    }
}

fn lang_votes(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "votes granted by",
        Lang::Ko => "찬성한 투표자",
    }
}

