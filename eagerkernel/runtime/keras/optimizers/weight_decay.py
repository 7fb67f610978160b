"""Which variables an optimizer's decoupled weight decay applies to (follows Keras 3's
``Optimizer.exclude_from_weight_decay``): the `WeightDecayExclusion` mixin of `Optimizer`."""

from __future__ import annotations

import re

__all__ = ["WeightDecayExclusion"]


class WeightDecayExclusion:
    """Mixed into `Optimizer`: `exclude_from_weight_decay` and the test `uses_weight_decay`
    the update applies before decaying a variable."""

    _decay_excluded: frozenset = frozenset()  # ids of the excluded variables
    _decay_pattern = None  # a compiled regex of the excluded names, or None

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Exempts variables from weight decay (follows Keras 3's
        `Optimizer.exclude_from_weight_decay`): those in ``var_list``, and those whose name
        contains a match of any regular expression in ``var_names`` (``["bias",
        "layer_norm"]``). Each call replaces the previous exclusions.

        Raises:
            ValueError: the optimizer is already built (its first step was taken), as in
                Keras.

        >>> opt = ek.keras.optimizers.AdamW(learning_rate=0.1, weight_decay=0.5)
        >>> kernel, bias = ek.Variable([1.0], name="kernel"), ek.Variable([1.0], name="bias")
        >>> opt.exclude_from_weight_decay(var_names=["bias"])
        >>> _ = opt.apply_gradients([(ek.constant([0.0]), kernel), (ek.constant([0.0]), bias)])
        >>> float(kernel[0]), float(bias[0])  # decayed by 1 - 0.5 * 0.1; not decayed
        (0.949999988079071, 1.0)
        """
        if getattr(self, "_built", None):
            raise ValueError(
                "`exclude_from_weight_decay()` can only be configured before the optimizer is "
                "built."
            )
        self._decay_excluded = frozenset(id(v) for v in var_list or ())
        names = set(var_names or ())
        self._decay_pattern = re.compile("|".join(sorted(names))) if names else None

    def uses_weight_decay(self, variable) -> bool:
        """Whether the weight decay applies to ``variable`` (not excluded by
        `exclude_from_weight_decay`)."""
        if id(variable) in self._decay_excluded:
            return False
        pattern = self._decay_pattern
        return pattern is None or pattern.search(variable.name) is None
