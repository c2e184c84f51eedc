"""Probes: functions of (case, context) that return findings; they never print or prompt."""
