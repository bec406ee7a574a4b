"""Reward-integrity audit: ``personal-envs audit shortcuts --env ID`` runs degenerate policies and short action
programs next to the honest baselines of an id and flags any that beats them (:mod:`.shortcuts`)."""

from personal_envs.audit.report import AuditReport, Row, render
from personal_envs.audit.shortcuts import audit_shortcuts
from personal_envs.audit.spec import IRRELEVANT_QUESTION, NEUTRAL_PROPOSAL, AuditSpec

__all__ = ["IRRELEVANT_QUESTION", "NEUTRAL_PROPOSAL", "AuditReport", "AuditSpec", "Row", "audit_shortcuts", "render"]
