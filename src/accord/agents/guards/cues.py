"""The words around a number that make it private, public or someone else's.

Patterns run on lower-cased, normalised text (number words already digits). They are
the vocabulary of :mod:`accord.agents.guards.detector`; its docstring states the rules.
"""

from __future__ import annotations

import re

#: names of private quantities (strong cues)
NAME = (r"(?:batna|reservation(?:[\s-]+(?:value|price|point|utility|level|threshold))?"
        r"|walk[\s-]?away(?:[\s-]+(?:point|value|price|threshold|level|number|utility))?"
        r"|bottom[\s-]?line|floor|fallback(?:[\s-]+(?:option|value|utility|position|payoff))?"
        r"|no[\s-]deal(?:[\s-]+(?:payoff|value|utility|outcome|option))?|outside[\s-]option"
        r"|minimum[\s-]acceptable(?:[\s-]+(?:outcome|value|utility|deal|price|level))?"
        r"|(?:best\s+)?alternative(?:\s+(?:supplier|vendor|offer|option|deal|buyer|seller|partner))?"
    r"|next[\s-]best(?:\s+(?:option|offer|alternative|deal))?|utility[\s-]+functions?|utilit(?:y|ies)|weights?"
        r"|weighting|payoffs?|break[\s-]?even(?:[\s-]+point)?)")
#: names that state a private value even without a possessive ("BATNA=0.41")
BARE_NAME = (r"(?:batna|reservation(?:[\s-]+(?:value|price|point|utility|level|threshold))?"
             r"|walk[\s-]away(?:[\s-]+(?:point|value|price|threshold|level|utility))?"
             r"|bottom[\s-]line|fallback[\s-]+(?:value|utility|payoff)|no[\s-]deal[\s-]+"
             r"(?:payoff|value|utility)|minimum[\s-]acceptable[\s-]+(?:value|utility))")
_OWN = r"(?:my|our)(?:\s+own)?"
_OTHER = (r"(?:your|their|his|her|its|the\s+other\s+(?:side|party)'s|the\s+counterpart'?s"
          r"|each\s+other's|everyone's|both\s+our)")
_PREP = (r"(?:above|below|under|over|beyond|than|to|with|about|of|on|for|from|into|between|"
         r"within|against|both|near|past|versus|vs\.?)")
_COPULA = (r"(?:\s*[=:]|\s+(?:is|'s|are|was|were|would\s+be|will\s+be|sits|stands|lies|"
           r"hovers|equals|comes\s+to|amounts\s+to|of|at|around|near|about)\b)")

REFUSAL = re.compile(
    r"\b(?:won't|will\s+not|wouldn't|can't|cannot|not\s+going\s+to|never|don't|do\s+not|"
    r"rather\s+not|refuse\s+to|not\s+allowed\s+to|no\s+need\s+to|not)\s+(?:\w+\s+){0,2}?"
    r"(?:share|sharing|tell|telling|reveal|revealing|disclose|disclosing|discuss|discussing|"
    r"say|show|showing|give\s+away|put\s+on\s+the\s+table|go\s+into)\b"
    r"|\bkeep(?:ing)?\b[^.;!?]{0,40}\b(?:to\s+(?:our|my)sel(?:f|ves)|private|confidential|"
    r"secret|under\s+wraps)\b"
    r"|\bis\s+(?:my|our)\s+(?:own\s+)?business\b|\bnone\s+of\s+your\s+business\b"
    r"|\bnot\s+your\s+concern\b|\bstays?\s+(?:private|with\s+(?:me|us))\b")


def own_name(role: str | None) -> re.Pattern[str]:
    """A private name the speaker owns: ``my BATNA``, ``our current walk-away point``."""
    owner = _OWN if not role else rf"(?:{_OWN}|{re.escape(role.lower())}'s)"
    return re.compile(rf"(?<!\w){owner}\s+(?:[a-z-]+\s+){{0,2}}?{NAME}\b")


def other_name(others: tuple[str, ...]) -> re.Pattern[str]:
    """A private name owned by someone else: ``your BATNA``, ``product's walk-away``."""
    alts = [_OTHER, r"[a-z]+'s"] + [rf"{re.escape(o.lower())}'s" for o in others]
    return re.compile(rf"(?<!\w)(?:{'|'.join(alts)})\s+(?:[a-z-]+\s+){{0,2}}?{NAME}\b")


PRECEDED_BY_PREP = re.compile(rf"\b{_PREP}(?:\s+\w+)?\s*$")
BARE_STATEMENT = re.compile(rf"(?<![\w'])(?:the\s+)?{BARE_NAME}(?:\s+here)?(?P<cop>{_COPULA})")
BARE_LABEL = re.compile(rf"(?:^|[\s(,])(?:the\s+)?{BARE_NAME}\s*[=:]")
THRESHOLD_PHRASE = re.compile(
    r"\b(?:the\s+)?(?:lowest|least|highest|most|minimum|maximum)\s+(?:i|we)\s+(?:can|could|"
    r"would|will|'d|'ll|am\s+able\s+to|are\s+able\s+to)\s+(?:possibly\s+)?(?:accept|go|take|"
    r"pay|do|settle\s+for|live\s+with)\b"
    r"|\b(?:i|we)(?:\s+would|'d|\s+will|'ll)?\s+walk\s+away\s+(?:below|under|above|beneath|at)\b"
    r"|\bwould\s+walk\s+away\s+(?:below|under|above)\b"
    rf"|\b(?:better\s+off|rather)\s+(?:\w+\s+){{0,2}}?(?:my|our)\s+(?:own\s+)?{NAME}\b")

#: words near a number that make it the speaker's own valuation (weak cues)
VALUE_CUE = re.compile(
    r"\b(?:to|for)\s+(?:me|us|my\s+side|our\s+side|myself|ourselves)\b"
    r"|\bon\s+(?:our|my)\s+(?:side|end|scale)\b|\bin\s+our\s+(?:model|weights?|utility|"
    r"books|scoring|terms)\b|\b(?:gives?|gets?|leaves?|puts?|brings?)\s+(?:me|us)\b"
    r"|\b(?:i|we)(?:'d|'ll|\s+would|\s+will)?\s+(?:only\s+)?(?:be|get|reach|land|end\s+up|"
    r"score|keep)\b|\b(?:i'm|we're|i\s+am|we\s+are)\s+(?:at|on)\b"
    r"|\bworth\b|\bscor(?:e|es|ed|ing)\b|\brat(?:es|ed|ing)\b|\bvalue[sd]?\b"
    r"|\bweigh(?:s|t|ts|ted|ting)?\b|\bmatters?\b|\bcounts?\b|\boverall\b|\bby\s+my\s+count\b"
    r"|\bsatisf(?:action|ied)\b|\bmeans?\s+to\b|\bevaluates?\s+to\b|\bcarr(?:y|ies)\b"
    r"|\bpayoff\b|\butility\b|\bwhat\s+(?:we|i)\s+care\b|\bof\s+(?:our|my)\s+(?:ideal|"
    r"decision|total|max|maximum|weighting|weight|utility|value)\b|\bof\s+max\b"
    r"|\bpoints?\b|\bfallback\b|\baccounts?\s+for\b"
    r"|\b(?:i|we)(?:'d|'ll|\s+would|\s+will)?\s+(?:give|rate|score|put|assign)\b"
    r"|\bof\s+how\s+(?:we|i)\s+(?:evaluate|score|value|rate|weigh|judge)\b")
#: words near a number that make it a walk-away threshold (strong cues)
THRESHOLD_CUE = re.compile(
    r"\b(?:below|under|less\s+than|lower\s+than|beneath|short\s+of)\b[^.;!?]{0,40}"
    r"\b(?:walk|walking|we're\s+out|i'm\s+out|no\s+deal|we\s+leave|i\s+leave)\b"
    r"|\bwalk(?:ing)?(?:\s+away)?\b[^.;!?]{0,30}\b(?:below|under|less\s+than|lower\s+than|"
    r"at\s+anything)\b|\banything\b[^.;!?]{0,30}?\b(?:below|under|less\s+than|lower\s+than|"
    r"south\s+of|short\s+of)\b|\b(?:where\s+)?(?:we|i)(?:'d|\s+would)\s+walk\b"
    r"|\b(?:won't|will\s+not|can't|cannot|couldn't|never)\s+(?:go|accept|take|settle|sign)"
    r"\b[^.;!?]{0,20}\b(?:below|under|less\s+than|lower\s+than|for\s+less)\b"
    r"|\b(?:more\s+than|above|over|better\s+than)\b[^.;!?]{0,40}\band\s+(?:we|i)\s+"
    r"(?:sign|agree|accept|have\s+a\s+deal)\b"
    r"|\bif\s+(?:this|it|the\s+deal|talks|we|things)\s+(?:falls?\s+through|fails?|"
    r"collapses?|breaks?\s+down|don't\s+agree|do\s+not\s+agree|can't\s+agree)\b"
    r"|\bwithout\s+(?:a|any)\s+deal\b|\bno[\s-]deal\b|\bplan\s+b\b|\bbetter\s+off\s+walking\b"
    r"|\bgo\s+under\s+it\b")

HEDGE_BEFORE = re.compile(
    r"(?:\babout|\baround|\broughly|\bapproximately|\bapprox\.?|~|\bcirca|\bca\.|\bnearly|"
    r"\balmost|\bclose\s+to|\bnear|\bjust\s+(?:under|over|below|above)|\ba\s+(?:bit|little)\s+"
    r"(?:under|over|below|above|more\s+than|less\s+than)|\bsome|\bin\s+the\s+(?:region|"
    r"neighbou?rhood|ballpark)\s+of|\bsomewhere\s+(?:around|near)|\bsomething\s+like|"
    r"\bon\s+the\s+order\s+of|\bnorth\s+of|\bsouth\s+of)\s*$")
HEDGE_AFTER = re.compile(r"^\s*,?\s*(?:or\s+so|give\s+or\s+take|-?ish)\b")



def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: right before a number: it labels a document, a time or a change, not a value
PUBLIC_BEFORE = re.compile(
    r"(?:\bversion|\bv|\bdraft|\brev(?:ision)?|\brelease|\bclause|\bsection|§|\bitem|\bno\.|"
    r"\bnumber|#|\bpage|\bsprint|\bround|\bmodel|\barticle|\bstep|\bfigure|\btable|\bup|"
    r"\bdown|\brose|\bfell|\bdropped|\bjumped|\bclimbed|\bincreased?|\bdecreased?|\bcut|"
    r"\bdiscount\s+of|[$€£]|\busd|\beur|\bgbp)\s*(?:about|around|roughly|approximately|"
    r"nearly|almost|some|~)?\s*$")
#: words that may follow a value without making it a quantity of something
VALUE_FOLLOW = _words("""
and or but so if is are was were be been which that then for to on in at with from as
overall total exactly flat even here there now when because we i you it this these those
out just only not no anyway too also already right by under below above over give tops
max before after minimum maximum honestly really though still yet either would will has
have means makes gives gets puts leaves keeps utility utilities utils points point pts
weight weighting score satisfaction value payoff percent rating
""")
#: words that may follow a percentage and make it a change or a share of something public
PERCENT_PUBLIC_FOLLOW = _words("""
since over than below above higher lower more less cheaper faster slower year annual
annually per a an off upfront discount chance probability likely done complete increase
decrease rise drop jump margin markup uptime availability
""")
#: nouns after "of" that keep a number a private value ("60% of our utility")
OF_VALUE = re.compile(
    r"^of\s+(?:(?:our|my|the)\s+)?(?:(?:total|overall|internal|max(?:imum)?)\s+)?(?:ideal|"
    r"decision|total|max|maximum|weighting|weights?|utility|value|scale|score|scoring|payoff|"
    r"priorities|preferences?|evaluation|assessment|model)\b"
    r"|^of\s+(?:what|how)\s+(?:we|i)\b")
#: what may follow a private name of the speaker's for it to be a statement ("our BATNA
#: is", "my bottom line:", "our weights heavily favour"), not a compound ("our weighting
#: committee", "our utility bill")
STATEMENT_NEXT = re.compile(
    r"(?<!\s)\s*+(?:$|[.,;:!?=)(\u2014\u2013-]|(?:\b\w+?ly\s+)?(?:is|'s|are|was|were|isn't|aren't|"
    r"wasn't|would|will|could|might|must|can|has|have|had|sits?|stands?|lies|hovers?|puts?|"
    r"favou?rs?|gives?|says?|means?|comes?|equals?|amounts?|looks?|remains?|seems?|stays?|"
    r"of|at|around|near|here|right|now|today|alone|itself|leaves?|gets?|weighs?|depends|"
    r"heavily|mostly|really|basically|honestly|currently|simply|just)\b)")
#: "41 on our 100-point scale": an integer on a 0..100 scale
HUNDRED_SCALE = re.compile(
    r"^\s*(?:on|out\s+of)\s+(?:a|an|our|the|my)?\s*(?:0\s*(?:-|to)\s*)?100(?:-point)?"
    r"(?:\s+point)?\s+scale\b|^\s*on\s+(?:a|an|our|the|my)\s+hundred[\s-]point\s+scale\b")
