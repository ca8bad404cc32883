/** A small built-in English stopword list (function words, auxiliaries, web boilerplate words). */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above across after afterwards again against all almost alone along already also although always am among amongst an and ' +
    'another any anyhow anyone anything anyway anywhere are around as at back be became because become becomes becoming been before ' +
    'beforehand behind being below beside besides between beyond both but by can cannot could did do does doing done down due during each ' +
    'eg either else elsewhere enough etc even ever every everyone everything everywhere except few for former formerly from further get ' +
    'gets got had has have having he hence her here hereafter hereby herein hers herself him himself his how however i ie if in indeed ' +
    'into is it its itself just last latter latterly least less let like made make makes many may me meanwhile might mine more moreover most ' +
    'mostly much must my myself namely neither never nevertheless next no nobody none noone nor not nothing now nowhere of off often on once ' +
    'one only onto or other others otherwise our ours ourselves out over own per perhaps please put rather re really said same say says see ' +
    'seem seemed seeming seems several she should since so some somehow someone something sometime sometimes somewhere still such than ' +
    'that the their theirs them themselves then thence there thereafter thereby therefore therein thereupon these they this those though ' +
    'through throughout thru thus to together too toward towards under until up upon us use used using very via was we well were what ' +
    'whatever when whence whenever where whereafter whereas whereby wherein whereupon wherever whether which while whither who whoever ' +
    'whole whom whose why will with within without would yet you your yours yourself yourselves s t d ll m re ve don doesn didn isn wasn ' +
    'aren weren won wouldn couldn shouldn can’t don’t it’s i’m i’ve that’s there’s he’s she’s let’s also just like get go going went ' +
    'know new year years time way thing things lot lots want wanted first two three four five six seven eight nine ten told tell ' +
    'com www http https html click share read comments comment reply posted post advertisement subscribe newsletter cookies cookie ' +
    // the commonest function words of French, Spanish, Portuguese, Italian, German and Dutch, for articles in those languages
    'le la les un une des du de et est en dans que qui pour pas sur au aux ce cette ces il elle ils elles nous vous leur leurs son sa ses ' +
    'ne se plus par mais ou donc ni car avec sans sous entre été être avoir fait comme aussi très tout tous toutes ont sont était ' +
    'el los las una unos unas del al y o es son fue por para con sin sobre entre como más pero sus su lo le se ya muy también hay ' +
    'este esta estos estas ese esa eso ha han había ser está están cuando donde porque sí os da das do dos em no na nos nas um uma ' +
    'não mais ao aos pelo pela seu sua foi são já il lo gli di che della delle dei per non con si una sono anche come alla nel ' +
    'der die das den dem des ein eine einer eines einem und ist im zu mit auf für von sich nicht auch es als an bei nach wie ' +
    'wird werden hat sind war noch aus oder nur so vor zum zur über het een en van op te dat niet ook zijn voor met aan er maar'
  ).split(/\s+/),
);
