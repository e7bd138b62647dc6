"""Game records across the games (each game's own record tests live in its test files)."""


def test_every_games_example_record_is_a_legal_game_of_some_preset():
    """The example shown beside a record box (the workbench's review page) can be pasted."""
    from spycfr.games import game_names, get_plugin

    for name in game_names():
        plugin = get_plugin(name)
        if plugin.records is None:
            continue
        fits = []
        for preset in plugin.presets:
            try:
                plugin.records.summary(plugin.make_variant(preset, None), plugin.records.example)
                fits.append(preset)
            except Exception:  # noqa: BLE001 - a record that does not fit this preset
                continue
        assert fits, f"{name}: {plugin.records.example!r} fits no preset"
