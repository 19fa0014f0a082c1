"""Small talk: a deterministic normalizer and a closed grammar of small-talk forms, matched against the
entire message.

A message is small talk when its normalized words split, from the first to the last, into forms of the
closed set below: greetings, goodbyes, thanks, yes, no, acknowledgements, courtesies and tests, with
fillers (``well``, ``oh``, ``and``, a name for the assistant) between them. ``"hello there, how are you?"``
is a greeting followed by a greeting; ``"thanks for your help, goodbye!"`` is thanks then a goodbye;
``"hi, can you check the logs?"`` is not small talk, because ``can you check the logs`` is no form.

Normalization: case folding, apostrophes dropped (``that's`` → ``thats``), emoji and emoticons removed
(a thumbs-up is ``ok``, folded hands ``thanks``, a waving hand ``hi``), punctuation to spaces, repeated
letters folded onto a known word (``hiii`` → ``hi``, ``thaaanks`` → ``thanks``) and one typo forgiven in a
long known word (``apprecaite`` → ``appreciate``). Every step is recorded.

The forms are written in a small pattern language: words separated by spaces, ``[…]`` optional,
``(a|b c)`` a choice, ``{name}`` a shared list from :data:`SHARED`.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

SMALLTALK_VERSION = "prooftext-smalltalk-v2"
"""Changing a form, a shared list or a normalization step changes this version."""

SHARED: Mapping[str, str] = {
    "int": (
        "(really|very|so|super|truly|totally|quite|extremely|incredibly|awfully|most|so very|really really"
        "|actually|certainly|completely|entirely|utterly|absolutely|definitely|overwhelmingly|clearly|simply"
        "|just|indeed|obviously|surely|100 percent|for sure)"
    ),
    "you": "(you|u|ya|yall|you all|you guys|everyone|everybody)",
    "nice": (
        "(good|great|nice|lovely|wonderful|awesome|fun|fantastic|amazing|excellent|cool|pleasant|pleasure"
        "|a pleasure|a joy|a treat|an honor|an honour|pleased|glad|happy|delighted|enjoyable|pleasant|fun|a delight)"
    ),
    "adj": (
        "(helpful|useful|great|perfect|awesome|nice|good|clear|informative|excellent|brilliant|fantastic"
        "|amazing|wonderful|lovely|handy|insightful|super|kind|sweet|cool)"
    ),
    "thing": (
        "(help|helping|assistance|support|time|answer|answers|reply|replies|response|responses|info"
        "|information|advice|explanation|explanations|tip|tips|input|feedback|suggestion|suggestions"
        "|everything|that|this|it|all that|all this|trying|listening|explaining|the chat|chatting|talking"
        "|the talk|the conversation|your patience|patience|being there|help me|helping me|helping out"
        "|letting me know|answering|answering that|answering it|answering me|answering my question|the assist"
        "|your cooperation|cooperation|giving me assistance|providing it|providing that|your efforts|your effort"
        "|the effort|checking|looking into it|looking into that|the answer you gave|the info you gave)"
    ),
    "stance": (
        "(i know|i think|i believe|i can confirm|i confirm|i am telling you|im telling you|i want you to know"
        "|let me tell you|trust me|i assure you|i promise|i guess|i suppose|i would say|id say|i feel|i mean"
        "|i meant|i am saying|im saying|i said|i say|i reckon|in my opinion|honestly|to be honest|actually"
        "|well actually|i am afraid|im afraid|unfortunately|sadly|i must say|i have to say|i gotta say) [that]"
    ),
    "when": "(today|tonight|this morning|this afternoon|this evening|these days|lately|recently|so far|now)",
    "truth": (
        "(right|correct|true|accurate|factual|valid|spot on|the case|so|it|exactly right|exactly it|fact|a fact"
        "|(a|an) [{int}] (true|correct|accurate|valid|right|factual) (statement|answer|fact|one)|a yes|yes)"
    ),
    "falsity": (
        "(wrong|false|incorrect|untrue|inaccurate|mistaken|a falsehood|a lie|the wrong answer|wrong answer"
        "|not right|not correct|not true|not it|not the case|not so|not accurate|nonsense|off|way off|fake|invalid"
        "|bogus|improper|not proper|not valid|a no|no|a negative|negative|(a|an) [{int}] (false|wrong|incorrect"
        "|untrue|inaccurate|invalid) (statement|answer|one))"
    ),
    "that": (
        "(thats|that is|that s|this is|it is|its|that was|it was|this was|that would be|that must be"
        "|that has to be|that happens to be|that seems|that sounds|that seems to be|that looks|that appears to be"
        "|the statement is|that statement is|the answer is|your answer is|that answer is|this statement is"
        "|that statement was|that will be|that appears|it appears|that appears to be|that turns out to be"
        "|it turns out to be|that turned out to be|that information is|the information is|that info is"
        "|that d be|thatd be|that would be|it seems|that seems|it would be|that is going to be"
        "|that sounds|it sounds|thats definitely|that is definitely|what you said is|what you say is)"
    ),
}
"""Lists shared by several forms (``{name}`` in a form, or in another shared list)."""

FORMS: Mapping[str, tuple[str, ...]] = {
    "greeting": (
        "(hi|hello|hey|heya|hiya|howdy|hullo|hallo|yo|sup|wassup|whassup|greetings|salutations|hola|bonjour"
        "|salut|ciao|namaste|aloha|shalom|gday|hey hey|hi hi|hello hello|hey ya|hey you) [there]"
        " [(again|all|everyone|everybody|folks|friend|buddy|pal|mate|you)]",
        "[a] [very] good (morning|afternoon|evening|day) [to {you}]",
        "(morning|afternoon|evening|top of the morning)",
        "(whats|what is) (up|new|happening|good|cracking|the news with you)",
        "(hows|how is|how has) (it|everything|things|life|your day|your morning|your evening|your afternoon"
        "|your week|your weekend|the day|the week|your day been|everything with you|things with you"
        "|it with you|life treating you) [(been|going|going for you|treating you)] [{when}]",
        "(how|hows) (are|r|re|have|ve) {you} [been] [(doing|going|keeping|feeling|holding up|getting on)]"
        " [{when}]",
        "how (are|r) (things|you) [{when}]",
        "how (do you do|you doing|ya doing|you been|are ya|goes it|goes|is it going|are you keeping)",
        "[(are|r)] {you} [doing] [{int}] (ok|okay|alright|all right|well|good|fine|feeling ok|feeling well"
        "|feeling good) [{when}]",
        "(is|s) everything (ok|okay|alright|all right|good|fine|well) [with {you}] [{when}]",
        "[(it is|its|it s|so|it was|it has been|its been)] [{int}] {nice} to (see|meet|hear from|be talking to"
        "|be chatting with) {you} [again]",
        "{nice} (seeing|meeting) {you} [again]",
        "(long time no see|long time no talk|long time|its been a while|it has been a while|been a while)",
        "[(i|we)] hope (youre|you are|youve been|you have been|you re) [doing] [{int}] (well|good|great|fine"
        "|ok|okay|alright|having a good day|having a great day|having a nice day)",
        "[(i|we)] hope (your day|your week|your weekend|everything|all|things|life) (is|are|has been)"
        " [going] [{int}] (well|good|great|fine|ok|okay)",
        "(i [would] (like|want|need) to|id like to|i wanna|i wonder|i wanted to) know how {you} (are|re)"
        " [(doing|feeling|going)] [{when}]",
        "(tell me|let me know|do tell) how {you} (are|re) [(doing|feeling|going)] [{when}]",
        "(will|would|can|could) you tell me how {you} (are|re) [(doing|feeling|going)] [{when}]",
        "(are you there|you there|anyone there|anybody there|is anyone there|is anybody there)",
        "(heyo|hey yo|hiya there|hey hey hey|hello again|hi again|hey again|welcome back)",
        "(how|hows|howre|howve|how are|how have|how is|how r) [{you}] [(been|doing|doin|going|goin|keeping|feeling|feelin"
        "|hanging|hangin|holding up|getting on|getting along|things|it)] [(going|been|hanging)] [{when}]",
        "(how you are|how are you|how you doing|how you been|how is everyone|how is everybody)",
        "[(tell me|let me know|i want to know|id like to know|i would like to know)] how (are you|you are|re you)"
        " [(doing|feeling|going)] [{when}]",
        "(ahoy|ahoy hoy|ahoy there|greetings to you|hello to you|hi to you|hey to you|salutations to you)",
        "(how|hows|howre|howve) [(are|have|is|re|ve|r|do)] (you|ya|u|things|everything|life|it|the ai|my ai|you all)"
        " [been] [(doing|doin|going|goin|feeling|feelin|keeping|treating you|going for you)] [(with|for) {you}]"
        " [(on|this|on this|in this)] [(fine|lovely|beautiful|good)] [(day|morning|evening|afternoon)] [{when}]",
        "how do (you|ya|u) feel [{when}]",
        "(is|are) (everything|things|all) going (ok|okay|well|good|alright|fine) [(for|with) {you}] [{when}]",
        "(have|did) you (been|had) (good|well|ok|okay|fine|a good day|a nice day|a great day)",
        "(are|r) {you} feeling (ok|okay|well|good|alright|fine|better) [{when}]",
        "[(i|i just)] [just] (wanted|want|came|stopped by|dropped in) to say (hi|hello|hey|good morning)",
        "(whats|what is|what s) (up|new|good|happening) with {you} [{when}]",
        "(can|could|will|would) you tell me how (you are|youre|re you|you have been|youve been) [(doing|feeling|going)] [{when}]",
        "(tell me|let me know) how (youve|you have) been [(doing|feeling)]",
    ),
    "goodbye": (
        "(bye|goodbye|good bye|byebye|bye bye|buh bye|bubye|farewell|adieu|adios|cheerio|ta ta|tata|toodles"
        "|toodle oo|ttyl|ttyt|cya|later|laters|see ya|seeya|peace|peace out|so long|take care|take it easy"
        "|good night|goodnight|night|night night|nite|nighty night|gnight|sweet dreams|sleep well|over and out"
        "|signing off|logging off|im out|i am out) [(then|now|for now|for today|for tonight|all|everyone"
        "|friend|buddy|mate|you)] [(then|now|for now)]",
        "(see|catch|talk to|speak to|chat with|chat to) {you} [(later|soon|tomorrow|around|then|next time"
        "|another time|again|later on|in a bit|in a while|tonight|next week|on the flip side|then bye)]",
        "(talk|speak|chat) (later|soon|tomorrow|again|another time|next time|in a bit)",
        "(ill|i will|i shall|we will|well) (see|talk to|speak to|catch|chat with) {you} [(later|soon"
        "|tomorrow|around|next time|another time|again)]",
        "(until|till|til) (next time|tomorrow|later|then|we meet again|we speak again|we talk again)",
        "have a [{int}] (good|nice|great|lovely|wonderful|fantastic|pleasant|good one|great one|nice one"
        "|blessed|productive|relaxing|safe) [(day|night|evening|afternoon|morning|weekend|week|one|time"
        "|rest of your day|rest of the day)]",
        "enjoy (your|the) (day|evening|night|weekend|week|afternoon|rest of your day|rest of the day)",
        "(im|i am|ill be|i will be|were|we are) (off|out|going|leaving|heading out|heading off|signing off"
        "|logging off|done|going now|off now|out of here|gone|leaving now|heading out now|outta here)"
        " [(now|then|for now|for today|for the day|for the night)]",
        "[(i|we|ok i|okay i)] (gotta|got to|have to|need to|must|should|better|ought to|am going to|m going to"
        "|will) (go|leave|run|head out|head off|get going|sign off|log off|be going|be off|split|bounce|dash)"
        " [(now|then|soon|bye)]",
        "time (to go|for me to go|to leave|for me to leave|to sign off|to say goodbye|to say bye)",
        "(thats|that is|that will be|thatll be|that would be|that should be|and thats|that was|it will be"
        "|this is) (all|it|everything) [(i need|i needed|i wanted|i have|for now|for today|for me|from me"
        "|then|thanks|for tonight)]",
        "(regards|best regards|kind regards|warm regards|best wishes|all the best|cheers|yours|yours truly"
        "|with thanks)",
        "[(it was|it is|its|it has been|its been|this was|that was|this has been|been)] [{int}] [a] {nice}"
        " (talking|chatting|speaking|to talk|to chat|to speak|talk|chat|conversation|catching up|to catch up"
        "|seeing you|meeting you|to see you|to meet you|talking with you|talking to you) [(to|with) {you}]",
        "i [{int}] (enjoyed|loved|liked) (talking|chatting|speaking|our chat|our talk|our conversation"
        "|this chat|this conversation|this|the chat|the conversation|that) [(to|with) {you}]",
        "[(it was|it is|its|it has been|its been|this was|that was|this has been|been)] [{int}] [a] {nice} [as always]"
        " (to talk|to chat|to speak|talking|chatting|speaking|to catch up|catching up) [(to|with) {you}]",
        "(this was|that was|it was|this has been|that has been) [{int}] (fun|nice|great|good|lovely|a pleasure|enjoyable"
        "|wonderful|awesome|helpful)",
        "(see|catch) {you} (around|later|soon) [(bye|then)]",
        "(sayonara|syonara|fairwell|buhbye|bye for now|bye then|goodbye to you|goodbye all|later gator|later gater"
        "|see you later alligator|see ya later alligator|after a while crocodile|in a while crocodile|toodaloo)",
        "(i|we) (must|have to|need to|gotta|got to|should|am going to|will|ll) say (goodbye|bye|farewell|good night)"
        " [(now|then|for now)]",
        "(im|i am|we are|were) (saying|going to say) (goodbye|bye|farewell|good night) [(now|then|for now)]",
        "(ive got to|ive gotta|i ve got to|ive to) (go|run|leave|head out|sign off|get going) [now]",
        "[(it was|it is|its|its always|it is always|always|it has been|its been|this was)] [{int}] {nice} to (talk"
        "|chat|speak|converse|get in touch|catch up|have this conversation|be able to chat|be able to talk"
        "|talk it out|have a chat|have a talk) [it out] [(to|with) {you}] [{when}]",
        "[(it was|it is|its|it has been|its been|this was)] [{int}] {nice} (conversing|having a conversation"
        "|having this conversation|having a chat) [(to|with) {you}] [{when}]",
        "(i am|im|we are|were|so) [{int}] (glad|happy|pleased) (we|i) (got to|could|were able to|was able to|did)"
        " (talk|chat|speak|catch up) [(to {you}|with {you})] [again]",
        "i (had|have had) (a pleasure|fun|a good time|a great time|a nice time|a lovely time|a blast) (talking"
        "|speaking|chatting) (to|with) {you}",
        "see {you} (again|around) [(soon|later|sometime)]",
    ),
    "thanks": (
        "(thanks|thank|thx|thanx|thnx|tnx|tks|ty|tysm|tyvm|thankyou|thanku|thank you|thank u|thank ya"
        "|thanks you|many thanks|much thanks|big thanks|thanks much|ta|merci|gracias|danke|mahalo|arigato"
        "|cheers) [(you|u|ya)] [(so much|very much|ever so much|so very much|really much|a lot|a bunch"
        "|a million|a ton|tons|loads|heaps|a heap|a billion|a thousand|kindly|again|as always|once again"
        "|very very much|so so much|much|indeed|a lot again|so much again|x a million|for everything)]",
        "(for|4) [(all|all of)] [(the|your|that|this|my|such|a)] [{int}] [(great|kind|quick|fast|wonderful"
        "|useful|helpful|nice|lovely|good|awesome|excellent|amazing)] {thing} [(and|&) [(for|4)] [(the|your"
        "|that)] (trying|trying to help|helping|{thing})] [(today|again|so far)]",
        "(for|4) (everything|all) (you do|you did|you have done|youve done|you are doing|youre doing"
        "|you have given me|youve given me)",
        "[(i|we)] [{int}] (appreciate|appreciated) (it|that|this|you|your help|the help|all your help"
        "|the help from you|your help today|all of it|your time|your assistance|the assistance|your support"
        "|the info|the information|the answer|the reply|your answer|your reply|that answer|that reply"
        "|everything) [(a lot|so much|very much|loads|a ton|a bunch|greatly)]",
        "[(thats|that is|its|it is|much|{int}|greatly|very much)] appreciated",
        "(i am|im|i feel|we are|were|i m) [{int}] (grateful|thankful|obliged|indebted) [(to {you})]",
        "(i|we) [just] [(would like|want|wanted|want to|need|have|had|d like)] [to] [{int}] thank {you}",
        "(i owe you one|i owe you|you saved me|you saved my day|you saved the day|you made my day)",
        "(youre|you are|ur|u r|you re) [{int}] (the best|awesome|amazing|great|a star|a legend|a gem"
        "|brilliant|wonderful|helpful|the man|the greatest|a lifesaver|a life saver|kind|too kind|a genius"
        "|a champ|a hero|the real mvp)",
        "you (rock|rule|are the best|the best|the man|rock man)",
        "(thats|its|that|this|it|that answer|this answer|your answer|the answer|that reply|your reply|the reply"
        "|that response|your response|the response|that info|that information|that advice|that explanation"
        "|you|youve|you have|youve been|you have been|this is|that is|it is|that was|this was|it was|you were"
        "|you are|youre) [(is|was|s|has been|have been|were|are|been|being)] [{int}] {adj} [(thanks|thank you)]",
        "(for|4) (helping|helping me|helping us|the assist|your assist|the assistance) [out] [(today|again)]",
        "[(for|4)] (chatting|talking|speaking) (with|to) (me|us)",
        "[(i|we)] [{int}] (appreciate|appreciated) (you|your) (doing|helping|help with|did|for doing) (that|this|it"
        "|me|us) [(for me|for us)]",
        "(you have|youve|you got) my [(sincere|deepest|heartfelt|eternal|utmost|endless|undying|warmest)]"
        " (gratitude|thanks|appreciation)",
        "(special|sincere|heartfelt|warm|warmest|many|my|big|huge|deepest) (thanks|gratitude) [(to {you})]",
        "(youve|you have|you) (been|were) [{int}] (a|such a) [{int}] (big|great|huge|real|good|tremendous) help",
        "(youve|you have|you) [{int}] (helped|helped me|helped me out|helped us|been helpful|been a help|been a big help"
        "|been very helpful|been so helpful|saved me)",
        "(i am|im|we are|were) [{int}] (glad|happy|pleased|thankful|grateful) (that )?(you|u) (did|helped|could help"
        "|were here|are here) [(that|this|it|me|us)] [(for me|for us)]",
        "(gratitude|many thanks to you|thanks to you)",
        "(much obliged|most obliged|obliged|merci beaucoup|muchas gracias|thanks a bunch|thanks heaps|cheers mate"
        "|why thank you|why thanks|thank you kindly|thanks kindly|i cannot thank you enough"
        "|i can not thank you enough|i cant thank you enough|cant thank you enough|let me thank you"
        "|youre a doll|you are a doll|youre a sweetheart|good looking out|you did good)",
        "(your|the|that|this) (help|answer|assistance|support|reply|response|effort|efforts|input|advice|time)"
        " (is|was|are|were) [{int}] (appreciated|helpful|useful|great|much appreciated|enjoyable|good|perfect)",
        "[(you did|thats|that was|that is|its|it was)] [(a|such a)] [{int}] (good|great|nice|fine|excellent|wonderful"
        "|fantastic|awesome|stellar|superb) (job|work|answer|effort) [(with|on) (that|this|it|assisting me"
        "|helping me)] [(thanks|thank you)]",
        "(i|we) (have|feel|owe you) [(much|so much|a lot of|great|deep|my)] (gratitude|thanks|appreciation)"
        " [(for {thing}|to you)]",
        "(i|we) [{int}] appreciate (what you did|what you have done|what youve done|all you did|all youve done"
        "|all you have done|what you do|all you do)",
        "(i am|im|we are|were) [{int}] (grateful|thankful) for (the|your|that|this|all the|all your) [(help"
        "|answer|assistance|support|reply|response|info|information|advice|time)] [(you (just )?gave me)]",
        "(thank you|thanks|thx|ty) for (answering|getting back to me|letting me know|giving me|providing) [(that"
        "|it|this|me|my question|the answer|the info|the information|assistance|me assistance|me the answer)]",
    ),
    "yes": (
        "(yes|yeah|yea|yeh|yep|yup|ya|yah|ye|yas|yass|yess|aye|affirmative|indeed|certainly|definitely"
        "|absolutely|of course|ofc|sure|sure thing|surely|for sure|totally|exactly|precisely|correct|right"
        "|true|agreed|i agree|i concur|we agree|uh huh|mhm|mm hmm|mmhmm|yes indeed|yes sir|yes maam"
        "|you bet|you betcha|by all means|without a doubt|no doubt|undoubtedly|why not|sure why not"
        "|i think so|i believe so|i guess so|i suppose so|guess so|think so|most definitely|most certainly"
        "|you got it|roger|roger that|copy|copy that|10 4|ten four|will do|can do|yes please|yes yes"
        "|yep yep|oh yes|oh yeah|hell yes|hell yeah|heck yes|heck yeah|that it is|it is|i do|i am|i did"
        "|i will|i can|we can|it does|that works|works for me|fine by me|fine with me|ok by me|okay by me"
        "|go ahead|go for it|please do|lets do it|lets do this|lets go|do it|lets|sounds good|sounds great"
        "|sounds fine|sounds right|sounds like a plan|sounds perfect|sounds about right|that sounds good"
        "|that sounds great|that sounds right|that sounds fine|that sounds like a plan|right on|yes sure)",
        "{that} [{int}] [(most definitely|definitely|totally|completely|absolutely|so|very much|very|just"
        "|indeed|certainly|100 percent|100)] {truth}",
        "(that|this|it) (checks out|adds up|holds true|is so|is the case)",
        "(youre|you are|ur|you re|u r) [{int}] [(absolutely|totally|definitely|completely|exactly|quite)]"
        " (right|correct|spot on|on point|on the money)",
        "you (got|have|hit) (it|that|the nail on the head) [(right|exactly)]",
        "[(i|ill|i will|id|i would|i shall|i must|i have to|i want to|let me|i d)] say (yes|yeah|yep|yup)"
        " [as my (answer|response|reply)]",
        "my (answer|response|reply) [(to (your|the|that|this) question)] (is|would be|will be|was) (yes|yeah"
        "|yep|yup|affirmative)",
        "(yes|yeah|yep|yup) (is|would be|will be) my (answer|response|reply)",
        "(the|my) answer is (yes|yeah|affirmative)",
        "[(i|we)] (agree|concur) [(with {you})] [(completely|totally|fully|100 percent|entirely)]",
        "(please|pls|plz) (lets do it|do it|go ahead|do|yes)",
        "lets (do it|do this|do that|go|go ahead|go for it|proceed)",
        "[{stance}] {that} [{int}] [(most definitely|definitely|totally|completely|absolutely|so|very much|very|just"
        "|indeed|certainly)] {truth}",
        "[{stance}] (its|it is|thats|that is|this is|that was) (a yes|yes)",
        "(accepted|confirmed|approved|facts|fact|valid|verified|confirm|affirm|affirmed|yes indeed|true that"
        "|so true|very true|quite right|too true|totally true|sure is|it sure is|that it is|yessir|yes maam"
        "|correctamundo|bingo|spot on|right on|you are right|very much so|quite so|precisely so)",
        "(youre|you are|ur|you re) not (wrong|incorrect|mistaken) [(about that|about it|there)]",
        "[{stance}] (i mean|i meant|i am saying|im saying|i said|i say) (yes|yeah|yep)",
        "[{stance}] {that} [{int}] (affirmative|positive|the truth|truthful|so|how it is|what i want|what i wanted"
        "|what i meant|what i need|exactly what i want|exactly what i wanted|exactly what i meant|confirmed"
        "|a definite yes|a resounding yes|a big yes|a firm yes|a yes from me|a yes)",
        "{that} not [{int}] (false|wrong|incorrect|untrue|inaccurate)",
        "(that|it|this) would be [{int}] (great|awesome|nice|perfect|good|wonderful|lovely|fantastic|excellent"
        "|amazing|brilliant|fine|helpful|appreciated)",
        "(positive|yeap|yeppers|yessum|yes sirree|yes siree|i vote yes|i vote for yes|yes i do|yes you are"
        "|yes it is|yes i am|yes i did|yes i will|yes i can|yes we can|yes we do|yes they are|yes it does)",
        "(true|yes|affirmative|positive) (is|would be|will be) my (answer|response|reply)",
        "(the|my) (answer|response|reply) [(to (that|this|your question|the question|that question))] (is|would be"
        "|will be|was) [(a resounding|a definite|a firm|a big|an emphatic|definitely)] (yes|affirmative"
        "|positive|yeah|true|correct)",
        "[(i|ill|i will|id|i would|i shall|i must|i have to|i want to|let me|i d|i gotta|i would have to|i got to"
        "|i guess i|i think i)] (say|answer|vote) (yes|yeah|yep|yup|affirmative|positive|true)",
        "[(yes|yeah)] (i|id|i would|i do|i really) [{int}] (like|love|want|enjoy) (that|it|this) [(a lot|alot"
        "|very much|so much)]",
        "(do that|do it|do so|make it so|lets)",
    ),
    "no": (
        "(no|nope|nah|naw|nay|na|no no|nope nope|nah nah|negative|negatory|a negatory|thats a negatory"
        "|not really|not quite|not exactly|not at all|not now|not right now|not today|not yet|not this time"
        "|no thanks|no thank you|no thank u|no thx|no way|no way jose|no chance|no sir|no maam|nuh uh|uh uh"
        "|absolutely not|definitely not|certainly not|of course not|surely not|hell no|heck no|oh no"
        "|i dont think so|i do not think so|i think not|i doubt it|i disagree|i dont agree|i do not agree"
        "|disagree|wrong|false|incorrect|untrue|not it|nope not it|not even close|not even|maybe later"
        "|i refuse|i decline|ill pass|i will pass|i pass|pass|never|nope never|no never|not ever|no no no"
        "|not for me|i dont|i do not|i cant|i cannot|i wont|i will not|it isnt|it is not|it doesnt)",
        "{that} [{int}] [(most definitely|definitely|totally|completely|absolutely|so|very much|very|just"
        "|all|100 percent|plain|simply|clearly)] {falsity}",
        "(that|this|it|thats|its) (isnt|is not|wasnt|was not|aint|cant be|cannot be|can not be|couldnt be"
        "|shouldnt be|doesnt seem|does not seem|doesnt sound|does not sound) [{int}] [(to be)] {truth}",
        "(that|this|it) (doesnt|does not|dont) (check out|add up|hold true|seem right|sound right|look right)",
        "(you|u) (got|have|get) (that|it|this) [(all|completely|totally)] wrong",
        "(youre|you are|ur|you re|u r) [{int}] [(absolutely|totally|definitely|completely|so)] (wrong"
        "|mistaken|incorrect|not right|not correct)",
        "(there is|theres|there s) no way [(in (heck|hell|the world))] [(that|thats|that is|it is|its|this"
        "|this is)] [{truth}]",
        "[(i|ill|i will|id|i would|i shall|i must|i have to|i want to|let me|i d)] say (no|nope|nah)"
        " [as my (answer|response|reply)]",
        "my (answer|response|reply) [(to (your|the|that|this) question)] (is|would be|will be|was) (no|nope"
        "|negative)",
        "(no|nope) (is|would be|will be) my (answer|response|reply)",
        "(the|my) answer is (no|negative)",
        "it is (no|not)",
        "[{stance}] {that} [{int}] [(most definitely|definitely|totally|completely|absolutely|so|very much|very|just"
        "|all|plain|simply|clearly)] {falsity}",
        "(not happening|hell nah|heck nah|nah man|no sir|no siree|no way no how|not a chance|fat chance|nope nope nope"
        "|not likely|unlikely|no can do|cant do|negative on that|invalid|fake|bogus|i would prefer not"
        "|id prefer not|i would rather not|id rather not|i prefer not|rather not|better not|nah thanks"
        "|no no|not true|not correct|not right|thats a no|its a no|that is a no|a no|big no|hard no)",
        "[{stance}] (i mean|i meant|i am saying|im saying|i said|i say) (no|nope|nah)",
        "(i|we) (dont|do not|didnt|did not) (think|believe|agree) [(that|so)] [{that}] [{int}] [{truth}]",
        "(thats|that is|it is|its|this is) (not|never) [{int}] {truth}",
        "(nada|nah nah|hell no|heck no|oh hell no|oh heck no|no no no|nope no|not that|not that one|not those"
        "|not this|not this one|it seems not|seems not|apparently not|i think not|i guess not|i suppose not"
        "|i hope not|hopefully not|probably not|not at all|no not at all|certainly not)",
        "(no|false|negative|nope) (is|would be|will be) [(the|my)] (answer|response|reply)",
        "(the|my) (answer|response|reply) [(to (that|this|your question|the question|that question))] (is|would be"
        "|will be|was) [(a resounding|a definite|a firm|a big|an emphatic|a hard|definitely)] (no|negative"
        "|false|nope|incorrect)",
        "[(i|ill|i will|id|i would|i shall|i must|i have to|i want to|let me|i d|i gotta|i would have to|i got to"
        "|i guess i|i think i)] (say|answer|vote) (no|nope|nah|negative|false) [(to that|to that question"
        "|on that|to this)]",
        "[{stance}] {that} [{int}] (a hard no|a definite no|a big no|a firm no|a no from me|a hard no from me|a no"
        "|erroneous|terrible|not what i want|not what i wanted|not what i meant|not what i asked for"
        "|not the right answer|not right at all|not correct at all|not true at all|the wrong answer|a mistake)",
        "{that} (isnt|is not|wasnt|was not) [{int}] (the right answer|the correct answer|right at all|what i want"
        "|what i wanted|what i meant|true at all|correct at all)",
        "(i|we) (dont|do not|didnt|did not) (like|want|need) (that|it|this) [(at all)]",
        "(i|we) (believe|think|consider|find) (that|it|this) (to be) [{int}] {falsity}",
        "(i|we) (dont|do not) (believe|think) (that|it|this) (is|s) (possible|true|right|correct)",
    ),
    "ok": (
        "(ok|okay|okey|okie|okie dokie|okey dokey|okay dokay|k|kk|kay|alright|all right|aight|fine|cool"
        "|coolio|great|good|nice|perfect|awesome|excellent|wonderful|fantastic|brilliant|lovely|sweet|neat"
        "|super|splendid|noted|understood|i understand|understood that|i see|makes sense|that makes sense"
        "|got it|gotcha|got you|gotcha thanks|i got it|got that|fair enough|fair|all good|very good|very well"
        "|good to know|nice to know|great to know|interesting|wow|whoa|oh wow|amazing|incredible|indeed"
        "|excellent thanks|ok then|okay then|alright then|fine then|so be it|if you say so|oh ok|oh okay|ah ok"
        "|ah okay|oh i see|ah i see|ok cool|okay cool|good stuff|great stuff|nice one|good one|well done"
        "|good job|nice job|great job|good work|nice work|great work|bravo|congrats|congratulations)",
        "(thats|that is|its|it is|this is|that was|it was|how|so|very) [{int}] (good|great|nice|cool|fine"
        "|ok|okay|perfect|awesome|excellent|wonderful|fantastic|brilliant|interesting|amazing|lovely|neat"
        "|fair|alright|all right|fun|funny|sweet)",
        "(lol|lmao|rofl|haha|hahaha|hahahaha|hehe|heh|hah|ha|ha ha|xd|lolol)",
    ),
    "courtesy": (
        "(youre welcome|you are welcome|welcome|my pleasure|the pleasure is mine|anytime|any time"
        "|no problem|no problemo|no prob|np|no worries|not a problem|dont mention it|it was nothing"
        "|sorry|so sorry|im sorry|i am sorry|sorry about that|my bad|my apologies|apologies|oops|whoops"
        "|oopsie|bless you|same to you|you too|likewise|and you|how about you"
        "|what about you|and yourself|how about yourself|cheers mate|no need)",
    ),
    "test": (
        "(test|testing|test test|testing testing|testing 1 2 3|test 1 2 3|1 2 3|123|test 123|testing 123"
        "|test 1|just testing|just a test|only a test|this is a test|this is just a test|a test|mic check"
        "|ping|is this on|is this working|is this thing on|is this thing working|can you hear me"
        "|do you hear me|do you read me|can you read me|hello world)",
    ),
}
"""The closed set of small-talk forms, per kind."""

FILLERS: tuple[str, ...] = (
    "(well|oh|ah|aw|aww|um|umm|uh|uhm|er|erm|hmm|hm|so|and|then|also|again|too|anyway|anyways|but|just"
    "|really|kindly|ai|bot|chatbot|assistant|robot|computer|buddy|friend|my friend|pal|mate|man|dude|bro"
    "|guys|everyone|everybody|folks|sir|madam|maam|dear|there|as well|for now|for real|yo|hey|now|here"
    "|please|pls|plz|then again|ok so|okay so|alright so|very|much|indeed|now then|in that case|why|siri|alexa"
    "|google|cortana|jarvis|chatgpt|device|ai device|helpful ai|my ai|the ai|dear ai|for sure|definitely"
    "|absolutely|certainly|totally|(that is|thats|this is|is|that was) my [final] (answer|response|reply)"
    "|from me|on that|on that one|to that|to that question|to you)",
)
"""Words between forms that carry no kind of their own: interjections, connectors, names for the
assistant. A message of fillers alone is not small talk."""

YES_NO_KINDS = ("yes", "no")
"""A message holding both a yes and a no (``yes and no``) asks for nuance: it is not small talk."""

EMOJI_WORDS: Mapping[str, str] = {
    "\N{THUMBS UP SIGN}": "ok",
    "\N{OK HAND SIGN}": "ok",
    "\N{WHITE HEAVY CHECK MARK}": "ok",
    "\N{SQUARED OK}": "ok",
    "\N{PERSON WITH FOLDED HANDS}": "thanks",
    "\N{WAVING HAND SIGN}": "hi",
    "\N{THUMBS DOWN SIGN}": "no",
}
"""Emoji that stand for a word; every other emoji is removed."""

EMOTICONS = re.compile(r"(?<!\S)(?:[:;=8xX][-'^o]?[()\[\]DPpOo3|/\\*]+|<3+|\^_*\^|[)(]+:|:'\()(?!\S)")
"""Text emoticons (``:)``, ``;-)``, ``:D``, ``<3``) removed like emoji."""

LONG_WORD_TYPO_MIN = 7
"""A word not in the vocabulary within one edit (an insertion, deletion, substitution or swap of two
neighbours) of exactly one known word at least this long is read as that word."""

_APOSTROPHES = "'\N{RIGHT SINGLE QUOTATION MARK}\N{LEFT SINGLE QUOTATION MARK}`\N{MODIFIER LETTER APOSTROPHE}"
_TOKEN = re.compile(r"\[|\]|\(|\)|\||\{[a-z]+\}|[^\s\[\]()|{}]+")


def expand(form: str) -> str:
    """``form`` with every ``{name}`` replaced by its shared list, also where a shared list names another."""
    for _ in range(len(SHARED) + 1):
        text = re.sub(r"\{([a-z]+)\}", lambda m: SHARED[m.group(1)], form)
        if text == form:
            return text
        form = text
    raise ValueError(f"shared lists name each other in a circle: {form!r}")


class _Grammar:
    """Every form of every kind as one automaton over words (Thompson's construction: a state after each
    word of a form, empty moves for choices and optional parts); a form's last state accepts its kind."""

    def __init__(self) -> None:
        self.empty: list[list[int]] = []
        self.moves: list[dict[str, list[int]]] = []
        self.accepts: dict[int, int] = {}
        self.start = self._state()
        for rank, (_, forms) in enumerate(_kinds()):
            for form in forms:
                self.accepts[self._form(form)] = rank

    def _state(self) -> int:
        self.empty.append([])
        self.moves.append({})
        return len(self.moves) - 1

    def _form(self, form: str) -> int:
        tokens = _TOKEN.findall(expand(form))
        return self._alternatives(form, tokens, 0, None, self.start)[1]

    def _alternatives(
        self, form: str, tokens: list[str], pos: int, closer: str | None, entry: int
    ) -> tuple[int, int]:
        """Read ``(a|b c)`` (or ``[…]``, or a whole form) from ``pos``, starting at ``entry``: the position
        after its closer, and the state every option ends in."""
        exit_, current = self._state(), entry
        while pos < len(tokens):
            tok = tokens[pos]
            pos += 1
            if tok == closer:
                break
            if tok == "|":
                self.empty[current].append(exit_)
                current = entry
            elif tok in ("(", "["):
                pos, after = self._alternatives(form, tokens, pos, ")" if tok == "(" else "]", current)
                if tok == "[":
                    self.empty[current].append(after)
                current = after
            elif tok in (")", "]"):
                raise ValueError(f"unbalanced {tok!r} in form {form!r}")
            else:
                follow = self._state()
                self.moves[current].setdefault(tok, []).append(follow)
                current = follow
        else:
            if closer is not None:
                raise ValueError(f"unclosed group in form {form!r}")
        self.empty[current].append(exit_)
        return pos, exit_

    def closure(self, states: Iterable[int]) -> frozenset[int]:
        """``states`` and every state their empty moves reach."""
        out = set(states)
        stack = list(out)
        while stack:
            for follow in self.empty[stack.pop()]:
                if follow not in out:
                    out.add(follow)
                    stack.append(follow)
        return frozenset(out)


_DEAD = -1


class _Matcher:
    """The grammar's deterministic automaton, built as it is walked: each state is a set of the grammar's
    states, and knows its kind (the earliest-listed kind it accepts) and, once visited, its moves."""

    def __init__(self, grammar: _Grammar) -> None:
        self._grammar = grammar
        self._lock = threading.Lock()
        self._ids: dict[frozenset[int], int] = {}
        self._sets: list[frozenset[int]] = []
        self._rows: list[dict[str, int] | None] = []
        self.kinds: list[int | None] = []
        self.start = self._intern(grammar.closure([grammar.start]))

    def _intern(self, states: frozenset[int]) -> int:
        found = self._ids.get(states)
        if found is None:
            found = self._ids[states] = len(self._sets)
            self._sets.append(states)
            self._rows.append(None)
            ranks = [self._grammar.accepts[s] for s in states if s in self._grammar.accepts]
            self.kinds.append(min(ranks) if ranks else None)
        return found

    def _row(self, state: int) -> dict[str, int]:
        with self._lock:
            row = self._rows[state]
            if row is None:
                targets: dict[str, set[int]] = {}
                for s in self._sets[state]:
                    for word, follows in self._grammar.moves[s].items():
                        targets.setdefault(word, set()).update(follows)
                row = {w: self._intern(self._grammar.closure(t)) for w, t in sorted(targets.items())}
                self._rows[state] = row
            return row

    def step(self, state: int, word: str) -> int:
        row = self._rows[state]
        if row is None:
            row = self._row(state)
        return row.get(word, _DEAD)

    def pieces(self, words: tuple[str, ...], start: int) -> Iterator[tuple[int, int]]:
        """Each ``end`` (ascending) for which ``words[start:end]`` is a form, with the rank of its kind."""
        state = self.start
        for end in range(start + 1, len(words) + 1):
            for word in words[end - 1].split(" "):
                state = self.step(state, word)
                if state == _DEAD:
                    return
            rank = self.kinds[state]
            if rank is not None:
                yield end, rank


def _kinds() -> tuple[tuple[str, tuple[str, ...]], ...]:
    return (*FORMS.items(), ("filler", FILLERS))


@cache
def _matcher() -> _Matcher:
    return _Matcher(_Grammar())


@cache
def vocabulary() -> frozenset[str]:
    """Every word a form, shared list or filler is written with."""
    words: set[str] = set()
    for text in (*SHARED.values(), *(f for forms in FORMS.values() for f in forms), *FILLERS):
        words.update(re.findall(r"[a-z0-9]+", re.sub(r"\{[a-z]+\}", " ", text)))
    return frozenset(words)


def _fold(word: str) -> str:
    return re.sub(r"(.)\1+", r"\1", word)


@cache
def _folded() -> dict[str, str]:
    """Folded spelling → the known word (the shortest, then the first in order, when several fold alike)."""
    out: dict[str, str] = {}
    for word in sorted(vocabulary(), key=lambda w: (len(w), w)):
        out.setdefault(_fold(word), word)
    return out


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by one insertion, deletion, substitution or swap of neighbours."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        return (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and a[diff[0]] == b[diff[1]]
            and a[diff[1]] == b[diff[0]]
        )
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1 :] for i in range(len(word))}


@cache
def _near_index() -> tuple[dict[str, frozenset[str]], int]:
    """Each long known word, and each of its spellings with one letter left out → the long known words it
    comes from; and the length of the longest."""
    index: dict[str, set[str]] = {}
    for known in vocabulary():
        if len(known) >= LONG_WORD_TYPO_MIN:
            for key in {known} | _deletions(known):
                index.setdefault(key, set()).add(known)
    return {k: frozenset(v) for k, v in index.items()}, max(map(len, index), default=0)


def _near(word: str) -> list[str]:
    """The long known words one edit from ``word``, alphabetically. Two words one edit apart share a
    spelling with at most one letter left out of each, so only the known words ``word`` shares one with are
    compared: a handful, not the vocabulary."""
    index, longest = _near_index()
    if len(word) > longest + 1:
        return []
    candidates: set[str] = set()
    for key in {word} | _deletions(word):
        candidates.update(index.get(key, ()))
    return sorted(v for v in candidates if _one_edit(word, v))


@dataclass(frozen=True)
class Normalized:
    """A message's words after normalization, and each step that changed something."""

    words: tuple[str, ...]
    steps: tuple[str, ...]

    @property
    def text(self) -> str:
        return " ".join(self.words)


def strip_symbols(text: str) -> tuple[str, list[str]]:
    """``text`` with emoji and emoticons removed (those that stand for a word replaced by it)."""
    steps: list[str] = []
    out: list[str] = []
    removed = 0
    for ch in text:
        word = EMOJI_WORDS.get(ch)
        if word is not None:
            out.append(f" {word} ")
            steps.append(f"emoji:{word}")
        elif unicodedata.category(ch) in ("So", "Sk", "Cs", "Co") or ch in "\u200d\ufe0f\ufe0e\u20e3":
            out.append(" ")
            removed += 1
        else:
            out.append(ch)
    stripped, emoticons = EMOTICONS.subn(" ", "".join(out))
    if removed or emoticons:
        steps.append(f"symbols_removed:{removed + emoticons}")
    return stripped, steps


def normalize(text: str) -> Normalized:
    """Fold case, drop apostrophes, remove emoji and punctuation, and map repeated letters and one typo in a
    long word onto the known vocabulary."""
    stripped, steps = strip_symbols(text)
    lowered = unicodedata.normalize("NFKC", stripped).casefold()
    lowered = re.sub(f"[{_APOSTROPHES}]", "", lowered)
    lowered = re.sub(r"[^\w\s]|_", " ", lowered)
    vocab, folded = vocabulary(), _folded()
    words: list[str] = []
    for word in lowered.split():
        known = word
        if word not in vocab:
            by_fold = folded.get(_fold(word))
            if by_fold is not None and _fold(word) != word:
                known = by_fold
                steps.append(f"repeated_letters:{word}->{known}")
            elif len(word) >= LONG_WORD_TYPO_MIN:
                near = _near(word)
                if len(near) == 1:
                    known = near[0]
                    steps.append(f"typo:{word}->{known}")
        words.append(known)
    return Normalized(tuple(words), tuple(steps))


@dataclass(frozen=True)
class Segment:
    kind: str
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text}


def segment(words: tuple[str, ...]) -> tuple[Segment, ...] | None:
    """The split of ``words`` into forms, first to last, with the fewest pieces; ``None`` when no split
    covers every word. Ties: where two splits first differ, the shorter piece; a piece several kinds match is
    of the earliest-listed kind. A form is a few words long, so each word is read a bounded number of times:
    the time is linear in the message."""
    n = len(words)
    if n == 0:
        return None
    matcher = _matcher()
    # From each start: the fewest pieces covering the rest, the end of the first piece and its kind's rank.
    best: list[tuple[int, int, int] | None] = [None] * (n + 1)
    best[n] = (0, n, 0)
    for start in range(n - 1, -1, -1):
        for end, rank in matcher.pieces(words, start):
            rest = best[end]
            held = best[start]
            if rest is not None and (held is None or rest[0] + 1 < held[0]):
                best[start] = (rest[0] + 1, end, rank)
    if best[0] is None:
        return None
    kinds = _kinds()
    pieces: list[Segment] = []
    start = 0
    while start < n and (step := best[start]) is not None:
        pieces.append(Segment(kinds[step[2]][0], " ".join(words[start : step[1]])))
        start = step[1]
    return tuple(pieces)


def constants() -> dict[str, Any]:
    """What the grammar is, for a decision's record."""
    return {
        "kinds": sorted(FORMS),
        "long_word_typo_min": LONG_WORD_TYPO_MIN,
        "version": SMALLTALK_VERSION,
    }
