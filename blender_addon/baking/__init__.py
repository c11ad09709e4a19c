"""Bake jobs: one scene stepped frame by frame into keys (modal, scripted or from the CLI)."""
