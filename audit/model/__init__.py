"""The ground floor: what flows between the stages (the claim's results), imported by every stage."""
