"""The mixture search: proxy runs over candidate blends, the fitted scaling law, the blend space."""
