"""Reading solved strategies: policies for real hands, strategy tables, reach-weighted summaries, charts."""
