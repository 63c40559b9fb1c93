"""The claim register: schema and loader, conventions, claimed values, measure names, limits."""
