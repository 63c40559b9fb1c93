"""The research brief's sections: sensitivity, source ledger, proposal, experiments, checklist."""
